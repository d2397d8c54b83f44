import "server-only";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { X509Certificate } from "node:crypto";
import tls from "node:tls";
import { certificateSignatureAlgorithm } from "@/lib/admission/pem";
import type { ProbeResult, ServedCertificate } from "@/lib/admission/health";

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
 * never as "down".
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

async function handshake(t: ProbeTarget): Promise<ProbeResult> {
  let address = t.host;
  if (!isIP(t.host.replace(/^\[|\]$/g, ""))) {
    try {
      address = (await lookup(t.host)).address;
    } catch (e) {
      return {
        status: "unreachable-from-here",
        error: `${t.host} does not resolve here (${(e as NodeJS.ErrnoException).code ?? "lookup failed"})`,
      };
    }
  } else {
    address = t.host.replace(/^\[|\]$/g, "");
  }
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
    const timer = setTimeout(
      () => finish({ status: "down", error: `no TLS handshake within ${t.timeoutMs} ms` }),
      t.timeoutMs,
    );
    socket.once("secureConnect", () => {
      const latencyMs = performance.now() - started;
      // Read once: a second read of the peer certificate may come back empty.
      const x509 = socket.getPeerX509Certificate();
      const cert = served(x509);
      // Node reports a failed host name check as the bare string code, after a chain that
      // verified: that case falls through to the name check below, which says which names.
      const err = socket.authorizationError as Error | string | undefined;
      const code = typeof err === "string" ? err : (err as NodeJS.ErrnoException | undefined)?.code;
      if (!socket.authorized && code !== "ERR_TLS_CERT_ALTNAME_INVALID") {
        finish({
          status: "tls-failed",
          latencyMs,
          error: typeof err === "string" ? err : String(err?.message ?? err),
          code,
          served: cert,
        });
        return;
      }
      // The name the apiserver verifies: an IP against IP SANs, a host name against DNS SANs.
      const name = t.serverName.replace(/^\[|\]$/g, "");
      const matches = isIP(name) ? x509?.checkIP(name) : x509?.checkHost(name);
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
        cert
          ? { status: "ok", latencyMs, served: cert }
          : { status: "down", error: "no certificate" },
      );
    });
    socket.once("error", (e: NodeJS.ErrnoException) =>
      finish({ status: "down", error: `${e.code ?? "error"}: ${e.message}` }),
    );
  });
}
