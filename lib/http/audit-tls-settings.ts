import { parseListenAddress } from "./listen";

/**
 * The audit sink's own HTTPS listener (README, "Admission decisions from your apiserver"): the
 * apiserver's audit webhook backend posts to it directly, authenticated by a client certificate
 * signed by PORTCULLIS_AUDIT_CLIENT_CA_FILE (or the bearer token, as on /api/audit).
 */
export interface AuditTlsSettings {
  /** As given (for log lines). */
  listen: string;
  host: string;
  port: number;
  /** The listener's serving certificate (PEM, its chain after it) and key. */
  certFile: string;
  keyFile: string;
  /** Client certificates signed by this CA (PEM, one or more) are accepted. */
  clientCaFile: string;
  /** Common names accepted; undefined: any certificate the CA signed. */
  clientNames?: string[];
}

/** Every setting the listener needs, in the order the error names missing ones. */
const REQUIRED = [
  "PORTCULLIS_AUDIT_TLS_LISTEN",
  "PORTCULLIS_AUDIT_TLS_CERT_FILE",
  "PORTCULLIS_AUDIT_TLS_KEY_FILE",
  "PORTCULLIS_AUDIT_CLIENT_CA_FILE",
] as const;

const NAMES = "PORTCULLIS_AUDIT_CLIENT_NAMES";

/**
 * The listener's settings from the environment: undefined when none is set (no listener); an
 * Error naming what is wrong when only some are set, the address is not host:port, or the names
 * list names nobody.
 */
export function auditTlsSettings(
  env: Readonly<Record<string, string | undefined>>,
): AuditTlsSettings | undefined {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const given = REQUIRED.filter((name) => value(name) !== undefined);
  const names = value(NAMES);
  if (given.length === 0 && names === undefined) return undefined;
  const missing = REQUIRED.filter((name) => value(name) === undefined);
  if (missing.length > 0) {
    throw new Error(
      `${REQUIRED.join(", ")} are set together (${NAMES} optional); missing: ${missing.join(", ")}`,
    );
  }
  const listen = value("PORTCULLIS_AUDIT_TLS_LISTEN") as string;
  const { host, port } = parseListenAddress(listen, "PORTCULLIS_AUDIT_TLS_LISTEN");
  let clientNames: string[] | undefined;
  if (names !== undefined) {
    clientNames = [
      ...new Set(
        names
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== ""),
      ),
    ];
    if (clientNames.length === 0) {
      throw new Error(`${NAMES} must list common names separated by commas, not "${names}"`);
    }
  }
  return {
    listen,
    host,
    port,
    certFile: value("PORTCULLIS_AUDIT_TLS_CERT_FILE") as string,
    keyFile: value("PORTCULLIS_AUDIT_TLS_KEY_FILE") as string,
    clientCaFile: value("PORTCULLIS_AUDIT_CLIENT_CA_FILE") as string,
    ...(clientNames ? { clientNames } : {}),
  };
}
