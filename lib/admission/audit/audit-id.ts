/**
 * The audit ID a decision is stored and looked up by. The apiserver keeps a client's `Audit-ID`
 * header as it is, however long (endpoints/filters/audit_init.go: "no truncation is performed"),
 * so a request's ID can be any length; refusing a long one would let a client hide its request's
 * decisions. An ID of up to MAX_AUDIT_ID characters is kept as it is; a longer one becomes its
 * first characters and the SHA-256 of the whole (always longer than MAX_AUDIT_ID, so it is never
 * an ID kept as it is): bounded, and distinct for distinct IDs. Pure and synchronous (the parser
 * and the feed's filter run in the browser too), hence the SHA-256 of its own.
 */

/** Longest audit ID kept as it is (the apiserver's own are 36-character UUIDs). */
export const MAX_AUDIT_ID = 128;
/** How much of a longer ID is kept before its hash. */
const KEPT = 100;
const HASH_MARK = "…sha256:";

/** The form an audit ID is stored in (itself when at most MAX_AUDIT_ID characters). */
export function storedAuditID(id: string): string {
  if (id.length <= MAX_AUDIT_ID) return id;
  return `${wellFormedPrefix(id, KEPT)}${HASH_MARK}${sha256Hex(id)}`;
}

/**
 * The first `n` UTF-16 units of `s`, one fewer where the last would be the first half of a
 * surrogate pair: a cut text stays well-formed.
 */
export function wellFormedPrefix(s: string, n: number): string {
  if (s.length <= n) return s;
  const high = s.charCodeAt(n - 1);
  return s.slice(0, high >= 0xd800 && high <= 0xdbff ? n - 1 : n);
}

const STORED_FORM = /…sha256:[0-9a-f]{64}$/;

/**
 * The stored form of an audit ID given to look one up: the ID as the client sent it, or the form
 * the feed shows (a link from a decision), which is kept.
 */
export function auditIDToFind(id: string): string {
  return id.length > MAX_AUDIT_ID && STORED_FORM.test(id) ? id : storedAuditID(id);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** SHA-256 (FIPS 180-4) of the UTF-8 encoding of `text`, as lowercase hex. */
export function sha256Hex(text: string): string {
  const data = new TextEncoder().encode(text);
  const size = Math.ceil((data.length + 9) / 64) * 64;
  const m = new Uint8Array(size);
  m.set(data);
  m[data.length] = 0x80;
  const view = new DataView(m.buffer);
  view.setUint32(size - 8, Math.floor(data.length / 0x20000000));
  view.setUint32(size - 4, (data.length * 8) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let at = 0; at < size; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(at + i * 4);
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] as number;
      const y = w[i - 2] as number;
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      w[i] = (w[i - 16] as number) + s0 + (w[i - 7] as number) + s1;
    }
    let a = h[0] as number;
    let b = h[1] as number;
    let c = h[2] as number;
    let d = h[3] as number;
    let e = h[4] as number;
    let f = h[5] as number;
    let g = h[6] as number;
    let hh = h[7] as number;
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + s1 + ch + (K[i] as number) + (w[i] as number)) | 0;
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] as number) + (add[i] as number);
  }
  let out = "";
  for (const x of h) out += x.toString(16).padStart(8, "0");
  return out;
}
