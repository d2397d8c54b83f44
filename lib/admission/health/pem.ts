/**
 * Just enough X.509 parsing for lint: split a PEM bundle and read each certificate's validity
 * window from its DER (Certificate → tbsCertificate → validity), with no Node-only APIs.
 */

/** One certificate's validity, or why it could not be read. */
export type CertificateInfo =
  | {
      readonly ok: true;
      readonly notBefore: Date;
      readonly notAfter: Date;
      /** The subject as `CN=…, O=…` (its common name, organizations and units), when readable. */
      readonly subject?: string;
    }
  | { readonly ok: false; readonly error: string };

/** One `-----BEGIN LABEL-----` … `-----END LABEL-----` block of PEM text. */
export interface PemBlock {
  readonly label: string;
  /** The text between the two boundary lines (base64, possibly with headers and white space). */
  readonly body: string;
  /** The whole block, boundaries included. */
  readonly text: string;
}

/** Labels longer than this are not PEM (RFC 7468 labels are short words). */
const MAX_LABEL = 64;
/** A bundle never needs more blocks than this; the rest is ignored. */
const MAX_PEM_BLOCKS = 256;

/**
 * The PEM blocks of `text`, in order, in one linear pass: every `-----BEGIN X-----` and
 * `-----END X-----` boundary is found once, and a block is a BEGIN whose very next boundary is
 * the END of the same label. Cluster data is hostile (the apiserver does not validate caBundle
 * content), so there is no backtracking pattern here whose time grows with the square of the size.
 */
export function pemBlocks(text: string, max: number = MAX_PEM_BLOCKS): PemBlock[] {
  const boundaries: Array<{ begin: boolean; label: string; start: number; end: number }> = [];
  let i = text.indexOf("-----");
  while (i !== -1) {
    const begin = text.startsWith("-----BEGIN ", i);
    const isEnd = !begin && text.startsWith("-----END ", i);
    if (!begin && !isEnd) {
      i = text.indexOf("-----", i + 5);
      continue;
    }
    const labelStart = i + (begin ? 11 : 9);
    const close = text.indexOf("-----", labelStart);
    if (close === -1) break;
    if (close - labelStart <= MAX_LABEL) {
      boundaries.push({ begin, label: text.slice(labelStart, close), start: i, end: close + 5 });
      i = text.indexOf("-----", close + 5);
    } else {
      i = close;
    }
  }
  const out: PemBlock[] = [];
  for (let b = 0; b + 1 < boundaries.length && out.length < max; b++) {
    const open = boundaries[b];
    const shut = boundaries[b + 1];
    if (!open || !shut || !open.begin || shut.begin || shut.label !== open.label) continue;
    out.push({
      label: open.label,
      body: text.slice(open.end, shut.start),
      text: text.slice(open.start, shut.end),
    });
    b++;
  }
  return out;
}

function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64.replace(/\s+/g, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
  readonly next: number;
}

function readTlv(b: Uint8Array, pos: number): Tlv {
  const tag = b[pos];
  let len = b[pos + 1];
  if (tag === undefined || len === undefined) throw new Error("truncated DER");
  let p = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (b[p + i] ?? 0);
    p += n;
  }
  if (p + len > b.length) throw new Error("truncated DER");
  return { tag, start: p, end: p + len, next: p + len };
}

function readTime(b: Uint8Array, t: Tlv): Date {
  const s = new TextDecoder().decode(b.subarray(t.start, t.end));
  const full = t.tag === 0x17 ? (Number(s.slice(0, 2)) >= 50 ? "19" : "20") + s : s;
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(full);
  if (!m) throw new Error(`unsupported time ${s}`);
  return new Date(
    Date.UTC(
      Number(m[1]),
      Number(m[2]) - 1,
      Number(m[3]),
      Number(m[4]),
      Number(m[5]),
      Number(m[6]),
    ),
  );
}

const NAME_ATTRIBUTES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
};

/**
 * A certificate's subject Name (SEQUENCE of SET of {OID, value}) as `CN=…, O=…`: the common
 * name, organizations and units in their order, other attributes left out; undefined when none
 * is readable.
 */
function subjectText(der: Uint8Array, name: Tlv): string | undefined {
  try {
    const parts: string[] = [];
    for (let p = name.start; p < name.end;) {
      const set = readTlv(der, p);
      for (let q = set.start; q < set.end;) {
        const atv = readTlv(der, q);
        const oid = readTlv(der, atv.start);
        const value = readTlv(der, oid.next);
        const label = oid.tag === 0x06 ? NAME_ATTRIBUTES[oidText(der, oid)] : undefined;
        if (label)
          parts.push(`${label}=${new TextDecoder().decode(der.subarray(value.start, value.end))}`);
        q = atv.next;
      }
      p = set.next;
    }
    return parts.length > 0 ? parts.join(", ") : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the validity (and subject) of one DER certificate. */
function certificateValidity(der: Uint8Array): CertificateInfo {
  try {
    const cert = readTlv(der, 0);
    const tbs = readTlv(der, cert.start);
    let p = tbs.start;
    let f = readTlv(der, p);
    if (f.tag === 0xa0) f = readTlv(der, f.next); // explicit version
    const serial = f;
    const sigAlg = readTlv(der, serial.next);
    const issuer = readTlv(der, sigAlg.next);
    const validity = readTlv(der, issuer.next);
    p = validity.start;
    const nb = readTlv(der, p);
    const na = readTlv(der, nb.next);
    const subject = subjectText(der, readTlv(der, validity.next));
    return {
      ok: true,
      notBefore: readTime(der, nb),
      notAfter: readTime(der, na),
      ...(subject ? { subject } : {}),
    };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Parses a caBundle as it appears in a configuration (base64 of PEM text) or as PEM text.
 * An empty result means no certificate block was found.
 */
export function parseCaBundle(caBundle: string): CertificateInfo[] {
  let pem = caBundle;
  if (!pem.includes("-----BEGIN")) {
    try {
      pem = new TextDecoder().decode(base64ToBytes(caBundle));
    } catch {
      return [{ ok: false, error: "caBundle is not base64" }];
    }
  }
  const out: CertificateInfo[] = [];
  for (const block of pemBlocks(pem)) {
    if (block.label !== "CERTIFICATE") continue;
    try {
      out.push(certificateValidity(base64ToBytes(block.body)));
    } catch {
      out.push({ ok: false, error: "certificate block is not base64" });
    }
  }
  return out;
}

const SIGNATURE_ALGORITHMS: Record<string, string> = {
  "1.2.840.113549.1.1.5": "sha1WithRSAEncryption",
  "1.2.840.113549.1.1.4": "md5WithRSAEncryption",
  "1.2.840.113549.1.1.11": "sha256WithRSAEncryption",
  "1.2.840.113549.1.1.12": "sha384WithRSAEncryption",
  "1.2.840.113549.1.1.13": "sha512WithRSAEncryption",
  "1.2.840.113549.1.1.10": "rsassaPss",
  "1.2.840.10045.4.1": "ecdsa-with-SHA1",
  "1.2.840.10045.4.3.2": "ecdsa-with-SHA256",
  "1.2.840.10045.4.3.3": "ecdsa-with-SHA384",
  "1.2.840.10045.4.3.4": "ecdsa-with-SHA512",
  "1.3.101.112": "Ed25519",
};

function oidText(b: Uint8Array, t: Tlv): string {
  const bytes = b.subarray(t.start, t.end);
  const first = bytes[0] ?? 0;
  const parts = [Math.floor(first / 40), first % 40];
  let v = 0;
  for (let i = 1; i < bytes.length; i++) {
    const byte = bytes[i] ?? 0;
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join(".");
}

/**
 * The signature algorithm of one DER certificate (Certificate → signatureAlgorithm), by name
 * when known, else its OID; undefined when the DER cannot be read.
 */
export function certificateSignatureAlgorithm(der: Uint8Array): string | undefined {
  try {
    const cert = readTlv(der, 0);
    const tbs = readTlv(der, cert.start);
    const alg = readTlv(der, tbs.next);
    const oid = readTlv(der, alg.start);
    if (oid.tag !== 0x06) return undefined;
    const text = oidText(der, oid);
    return SIGNATURE_ALGORITHMS[text] ?? text;
  } catch {
    return undefined;
  }
}
