import "server-only";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { X509Certificate } from "node:crypto";
import tls from "node:tls";
import { certificateSignatureAlgorithm } from "@/lib/admission/health/pem";
import type { ProbeResult, ServedCertificate } from "@/lib/admission/health/health";
import {
  destinationPolicyFromEnv,
  NO_HANDSHAKE,
  PROBE_REFUSED,
  refusedDestination,
} from "./destinations";

export interface ProbeTarget {
  host: string;
  port: number;
  /** The name the apiserver verifies: the URL's host, or `<svc>.<ns>.svc`. */
  serverName: string;
  /** PEM text of the hook's caBundle; undefined: the system's roots (as the apiserver would). */
  caPem?: string;
  timeoutMs: number;
}

/** Probe answers are reused for this long, so a page refresh does not dial every backend again. */
const CACHE_MS = 30_000;
/** Handshakes at once, so a cluster of many hooks does not open hundreds of connections. */
const CONCURRENCY = 8;

const g = globalThis as typeof globalThis & {
  portcullisProbes?: Map<string, { at: number; result: Promise<ProbeResult> }>;
};
let running = 0;
const waiting: Array<() => void> = [];

async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function served(cert: X509Certificate | undefined): ServedCertificate | undefined {
  if (!cert) return undefined;
  return {
    subject: cert.subject.replace(/\n/g, ", "),
    subjectAltName: cert.subjectAltName,
    notAfter: new Date(cert.validTo).toISOString(),
    signatureAlgorithm: certificateSignatureAlgorithm(new Uint8Array(cert.raw)),
  };
}

/**
 * Dials the backend from where the dashboard runs and completes a TLS handshake that verifies the
 * hook's own caBundle and the server name the apiserver uses, within the hook's timeout — what
 * the apiserver does before every call. A name that does not resolve here is reported as such,
 * never as "down". Destinations the apiserver could not sensibly call (loopback, link-local, the
 * dashboard's own addresses: ./destinations.ts) are not dialled at all when the probe is
 * restricted, as it is in shared mode.
 */
export function probeTls(t: ProbeTarget): Promise<ProbeResult> {
  g.portcullisProbes ??= new Map();
  const key = JSON.stringify(t);
  const hit = g.portcullisProbes.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.result;
  const result = slot(() => handshake(t));
  g.portcullisProbes.set(key, { at: Date.now(), result });
  if (g.portcullisProbes.size > 4096) g.portcullisProbes.clear();
  return result;
}

/**
 * OpenSSL's verdicts when the chain does not end at a self-signed certificate of the bundle. Go's
 * crypto/x509 (the apiserver's) takes every certificate in the caBundle as a trust anchor, an
 * intermediate CA included: such a chain is checked again as Go would (anchoredInBundle).
 */
const PARTIAL_CHAIN = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const ANY_EKU = "2.5.29.37.0";

/**
 * The peer's chain as OpenSSL built it (the certificates the backend sent, and any of the bundle
 * it reached), the backend's own first.
 */
function presentedChain(socket: tls.TLSSocket): X509Certificate[] {
  const out: X509Certificate[] = [];
  let c: tls.DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (c?.raw && out.length < 10) {
    out.push(new X509Certificate(c.raw));
    if (c.issuerCertificate === c) break;
    c = c.issuerCertificate;
  }
  return out;
}

/** The certificates of a PEM bundle (blocks that do not parse are skipped, as Go skips them). */
function bundleCertificates(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of pem.split("-----END CERTIFICATE-----")) {
    const at = block.indexOf("-----BEGIN CERTIFICATE-----");
    if (at < 0) continue;
    try {
      out.push(new X509Certificate(`${block.slice(at)}-----END CERTIFICATE-----\n`));
    } catch {
      // not a certificate
    }
  }
  return out;
}

const timeValid = (c: X509Certificate, now: number) =>
  Date.parse(c.validFrom) <= now && now <= Date.parse(c.validTo);

/** `issuer` is a CA, in its validity, and signed `c` — not with SHA-1, which Go refuses. */
const issued = (issuer: X509Certificate, c: X509Certificate, now: number) =>
  issuer.ca &&
  timeValid(issuer, now) &&
  c.checkIssued(issuer) &&
  !/sha1/i.test(certificateSignatureAlgorithm(new Uint8Array(c.raw)) ?? "") &&
  c.verify(issuer.publicKey);

/**
 * Whether Go would verify the chain: from the leaf through the certificates sent to any CA
 * certificate of the bundle (self-signed or not), each link a CA that signed the one below, all
 * within their validity, the leaf good for server authentication.
 */
function anchoredInBundle(chain: X509Certificate[], caPem: string | undefined): boolean {
  const leaf = chain[0];
  if (!leaf || !caPem) return false;
  const now = Date.now();
  const eku = leaf.keyUsage;
  if (!timeValid(leaf, now) || (eku && !eku.includes(SERVER_AUTH) && !eku.includes(ANY_EKU)))
    return false;
  const anchors = bundleCertificates(caPem);
  let current = leaf;
  for (let depth = 0; depth < 10; depth++) {
    if (anchors.some((a) => issued(a, current, now))) return true;
    const next = chain.find((c) => c !== current && issued(c, current, now));
    if (!next) return false;
    current = next;
  }
  return false;
}

async function handshake(t: ProbeTarget): Promise<ProbeResult> {
  const policy = destinationPolicyFromEnv();
  const refused: ProbeResult = { status: "not-probed", reason: PROBE_REFUSED };
  const literal = t.host.replace(/^\[|\]$/g, "");
  let address: string;
  if (isIP(literal)) {
    address = literal;
  } else {
    try {
      // Every address the name has is checked, and the probe dials the first of them: the
      // address checked is the address connected to (a rebinding name gains nothing).
      const found = await lookup(t.host, { all: true });
      if (found.some((f) => refusedDestination(f.address, policy))) return refused;
      address = found[0]?.address ?? "";
      if (!address) throw Object.assign(new Error("no address"), { code: "ENOTFOUND" });
    } catch (e) {
      return {
        status: "unreachable-from-here",
        error: `${t.host} does not resolve here (${(e as NodeJS.ErrnoException).code ?? "lookup failed"})`,
      };
    }
  }
  if (refusedDestination(address, policy)) return refused;
  const started = performance.now();
  return new Promise<ProbeResult>((resolve) => {
    const socket = tls.connect({
      host: address,
      port: t.port,
      servername: isIP(t.serverName) ? undefined : t.serverName,
      ca: t.caPem,
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    });
    const finish = (r: ProbeResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    // Refused, silent past the timeout, or not speaking TLS: the same words for each, so the
    // probe tells an admin that the backend is not serving, and a scanner nothing more.
    const timer = setTimeout(() => finish({ status: "down", error: NO_HANDSHAKE }), t.timeoutMs);
    socket.once("secureConnect", () => {
      const latencyMs = performance.now() - started;
      // Read once (a second read of the peer certificate may come back empty): the chain as
      // OpenSSL built it, the backend's own certificate first.
      const chain = presentedChain(socket);
      const x509 = chain[0];
      const cert = served(x509);
      // Node reports a failed host name check as the bare string code, after a chain that
      // verified: that case falls through to the name check below, which says which names.
      const err = socket.authorizationError as Error | string | undefined;
      const code = typeof err === "string" ? err : (err as NodeJS.ErrnoException | undefined)?.code;
      const anchored =
        !socket.authorized &&
        code !== undefined &&
        PARTIAL_CHAIN.has(code) &&
        anchoredInBundle(chain, t.caPem);
      if (!socket.authorized && code !== "ERR_TLS_CERT_ALTNAME_INVALID" && !anchored) {
        finish({
          status: "tls-failed",
          latencyMs,
          error: typeof err === "string" ? err : String(err?.message ?? err),
          code,
          served: cert,
        });
        return;
      }
      // The name the apiserver verifies: an IP against IP SANs, a host name against DNS SANs —
      // never the subject's CN, which Go stopped reading (a CN-only certificate fails there).
      const name = t.serverName.replace(/^\[|\]$/g, "");
      const matches = isIP(name)
        ? x509?.checkIP(name)
        : x509?.checkHost(name, { subject: "never" });
      if (!matches) {
        finish({
          status: "tls-failed",
          latencyMs,
          error: `the serving certificate does not name ${name} (its names: ${x509?.subjectAltName ?? "none"})`,
          code: "ERR_TLS_CERT_ALTNAME_INVALID",
          served: cert,
        });
        return;
      }
      finish(
        cert ? { status: "ok", latencyMs, served: cert } : { status: "down", error: NO_HANDSHAKE },
      );
    });
    socket.once("error", () => finish({ status: "down", error: NO_HANDSHAKE }));
  });
}
