/**
 * A caBundle as a change history shows it: a digest (so a rotation shows even where the text is
 * too long to read) and what its certificates say — subject and expiry — read with the health
 * folder's CA decoding.
 */
import { parseCaBundle } from "../health/pem";
import { sha256Hex } from "@/lib/admission/audit/audit-id";

export interface CaBundleSummary {
  /** `sha256:` and the first 16 hex digits of the SHA-256 of the caBundle's text as stored. */
  digest: string;
  certificates: ReadonlyArray<{ subject?: string; notAfter?: string; error?: string }>;
}

export function caBundleSummary(caBundle: string): CaBundleSummary {
  const digest = `sha256:${sha256Hex(caBundle).slice(0, 16)}`;
  if (caBundle === "") return { digest, certificates: [] };
  return {
    digest,
    certificates: parseCaBundle(caBundle).map((c) =>
      c.ok
        ? { ...(c.subject ? { subject: c.subject } : {}), notAfter: c.notAfter.toISOString() }
        : { error: c.error },
    ),
  };
}

/** One line: `sha256:… (CN=x, expires 2027-11-22)`, each certificate of the bundle in turn. */
export function caBundleText(caBundle: string): string {
  const s = caBundleSummary(caBundle);
  if (s.certificates.length === 0) return `${s.digest} (no certificate)`;
  const certs = s.certificates.map((c) =>
    c.error
      ? `unreadable: ${c.error}`
      : `${c.subject ?? "no subject"}, expires ${(c.notAfter ?? "").slice(0, 10)}`,
  );
  return `${s.digest} (${certs.join("; ")})`;
}
