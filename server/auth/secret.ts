// Plain Node, without "server-only": proxy.ts imports it to check cookie signatures before any
// handler runs (server/ stays out of client bundles by the ESLint boundary rule).
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { readFileSync } from "node:fs";

interface Keys {
  file: string;
  sign: Buffer;
  encrypt: Buffer;
}

let cached: Keys | undefined;

/**
 * The keys derived from PORTCULLIS_SESSION_SECRET_FILE: one signs session cookies, one encrypts
 * users' tokens at rest. Read once per process (a changed secret needs a restart, which also
 * ends every session signed with the old one).
 */
function keys(): Keys {
  const file = process.env.PORTCULLIS_SESSION_SECRET_FILE;
  if (!file) {
    throw new Error("shared mode needs PORTCULLIS_SESSION_SECRET_FILE (at least 32 random bytes)");
  }
  if (cached?.file === file) return cached;
  const secret = readFileSync(file);
  const material = secret.toString("utf8").trim();
  if (Buffer.byteLength(material) < 32) {
    throw new Error("the session secret must hold at least 32 bytes");
  }
  const derive = (info: string) =>
    Buffer.from(hkdfSync("sha256", material, "portcullis", info, 32));
  cached = { file, sign: derive("session cookie"), encrypt: derive("session token") };
  return cached;
}

/** A new random session id, URL-safe. */
export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

function mac(id: string): string {
  return createHmac("sha256", keys().sign).update(id).digest("base64url");
}

/** The cookie value for a session id: `id.signature`. */
export function signSessionId(id: string): string {
  return `${id}.${mac(id)}`;
}

/** The session id of a signed cookie value, or undefined when the signature does not match. */
export function verifySessionCookie(value: string): string | undefined {
  const dot = value.indexOf(".");
  if (dot <= 0 || value.length > 200) return undefined;
  const id = value.slice(0, dot);
  const got = Buffer.from(value.slice(dot + 1));
  const want = Buffer.from(mac(id));
  return got.length === want.length && timingSafeEqual(got, want) ? id : undefined;
}

/** AES-256-GCM with `bound` as associated data (the row it belongs to): `iv.tag.ciphertext`. */
export function encryptToken(token: string, bound: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", keys().encrypt, iv);
  c.setAAD(Buffer.from(bound));
  const ct = Buffer.concat([c.update(token, "utf8"), c.final()]);
  return [iv, c.getAuthTag(), ct].map((b) => b.toString("base64url")).join(".");
}

/** Reverses encryptToken; throws when the data was altered or belongs to another row. */
export function decryptToken(sealed: string, bound: string): string {
  const [iv, tag, ct] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
  if (!iv || !tag || !ct) throw new Error("malformed sealed token");
  const d = createDecipheriv("aes-256-gcm", keys().encrypt, iv);
  d.setAAD(Buffer.from(bound));
  d.setAuthTag(tag);
  return Buffer.concat([d.update(ct), d.final()]).toString("utf8");
}
