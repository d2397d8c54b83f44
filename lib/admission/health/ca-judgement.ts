/**
 * What a hook's caBundle means to the apiserver, judged once for the health page and lint rule
 * L8. Pure and free of imports (lint runs in the browser).
 *
 * client-go builds the trust pool with Go's x509.CertPool.AppendCertsFromPEM: it skips every block
 * that is not a CERTIFICATE or does not parse, and fails ("unable to load root certificates") only
 * when no certificate at all was added — then every call fails. The apiserver's validation checks
 * nothing but the base64 of a caBundle.
 */

export interface CaFacts {
  /**
   * Days until the earliest certificate of the caBundle that is valid now expires; when none is,
   * since the latest one expired (negative).
   */
  daysLeft?: number;
  /** No caBundle: the apiserver's own trust roots are used (fine for public URLs). */
  empty: boolean;
  /** Why no certificate of the bundle loads: the apiserver then fails every call. */
  error?: string;
  /** CERTIFICATE blocks beside loadable ones that do not parse: the apiserver skips them. */
  skipped?: number;
  /** When no certificate is valid yet nor any longer: days until the first becomes valid. */
  notYetValidInDays?: number;
  /** Certificates beside a valid one that cannot anchor a chain now (expired, not yet valid). */
  unusable?: { expired: number; notYetValid: number };
}

const DAY_MS = 86_400_000;

/**
 * What a caBundle's certificates say about trust now. `certificates` are those that parse;
 * `error` says why, when none does (nothing loads); `skipped` counts the CERTIFICATE blocks that do
 * not parse. Go's crypto/x509 (the apiserver's) takes each certificate of the bundle as a possible
 * anchor and checks every certificate's validity window when it builds a chain: an expired
 * certificate beside a valid one (a CA being rotated) takes nothing away, and one not valid yet
 * anchors nothing until it is.
 */
export function caFactsOf(
  certificates: ReadonlyArray<{ readonly notBefore: string; readonly notAfter: string }>,
  error: string | undefined,
  now: number,
  skipped = 0,
): CaFacts {
  if (certificates.length === 0)
    return { empty: false, error: error ?? "no PEM certificate found in caBundle" };
  const dated = certificates.map((c) => ({
    from: Date.parse(c.notBefore),
    to: Date.parse(c.notAfter),
  }));
  const daysTo = (t: number) => Math.floor((t - now) / DAY_MS);
  const usable = dated.filter((c) => c.from <= now && now <= c.to);
  const expired = dated.filter((c) => now > c.to);
  const pending = dated.filter((c) => now < c.from && now <= c.to);
  const base = { empty: false, skipped: skipped > 0 ? skipped : undefined };
  if (usable.length > 0) {
    return {
      ...base,
      daysLeft: daysTo(Math.min(...usable.map((c) => c.to))),
      unusable:
        expired.length + pending.length > 0
          ? { expired: expired.length, notYetValid: pending.length }
          : undefined,
    };
  }
  return {
    ...base,
    daysLeft: expired.length > 0 ? daysTo(Math.max(...expired.map((c) => c.to))) : undefined,
    notYetValidInDays:
      pending.length > 0
        ? Math.ceil((Math.min(...pending.map((c) => c.from)) - now) / DAY_MS)
        : undefined,
  };
}

export interface CaJudgement {
  severity: "critical" | "high" | "medium" | "info";
  code: string;
  message: string;
}

/**
 * What stands in the way of TLS to the backend in its caBundle. `warnDays`: how far ahead an
 * expiry is worth a warning (a week ahead is critical).
 */
export function judgeCaBundle(ca: CaFacts, failClosed: boolean, warnDays = 30): CaJudgement[] {
  const out: CaJudgement[] = [];
  const add = (severity: CaJudgement["severity"], code: string, message: string) =>
    out.push({ severity, code, message });
  if (ca.empty) return out;
  if (ca.error) {
    add(
      failClosed ? "critical" : "high",
      "ca-unreadable",
      `${ca.error}: the apiserver cannot load the caBundle (unable to load root certificates) and fails every call${failClosed ? ": every matching request is refused" : ""}`,
    );
    return out;
  }
  if (ca.notYetValidInDays !== undefined) {
    add(
      "critical",
      "ca-not-yet-valid",
      `no certificate of the caBundle is valid yet (the first becomes valid in ${ca.notYetValidInDays} days): TLS to the backend fails until then`,
    );
  } else if (ca.daysLeft !== undefined) {
    if (ca.daysLeft < 0)
      add("critical", "ca-expired", `the caBundle expired ${-ca.daysLeft} days ago`);
    else if (ca.daysLeft < 7)
      add("critical", "ca-expiring", `the caBundle expires in ${ca.daysLeft} days`);
    else if (ca.daysLeft < warnDays)
      add("medium", "ca-expiring", `the caBundle expires in ${ca.daysLeft} days`);
  }
  if (ca.unusable) {
    const parts = [
      ca.unusable.expired > 0 ? `${ca.unusable.expired} expired` : "",
      ca.unusable.notYetValid > 0 ? `${ca.unusable.notYetValid} not yet valid` : "",
    ].filter(Boolean);
    add(
      "info",
      "ca-unusable-certificates",
      `the caBundle also holds ${parts.join(" and ")} certificate(s), which the apiserver cannot trust now; the valid one must sign the serving certificate`,
    );
  }
  if (ca.skipped) {
    add(
      "info",
      "ca-skipped-blocks",
      `${ca.skipped} CERTIFICATE block(s) of the caBundle do not parse; the apiserver skips them and trusts the certificates that do`,
    );
  }
  return out;
}
