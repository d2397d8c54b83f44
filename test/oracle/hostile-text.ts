/**
 * Text an attacker or a careless webhook author could put where the dashboard reads it back: a
 * webhook's denial message, an annotation a policy's messageExpression quotes. Pieces that look
 * like the apiserver's own phrases (another hook's denial, a policy's refusal, a timeout),
 * quotes and backslashes, line breaks, control characters and NUL, characters outside the BMP,
 * a lone surrogate, Unicode spaces at either end, markup, and sometimes a length past the
 * dashboard's or the apiserver's limits.
 */
import type { Rand } from "./random-requests";

const PIECES = [
  "refused by policy",
  "plain words",
  '"',
  "'",
  "\\",
  '\\"',
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "\u0001",
  "é漢字",
  "🚀",
  "\u200f",
  "\u00a0",
  "\u2028",
  "\ud800",
  "<script>alert(1)</script>",
  '"},{"kind":"Event"',
  'admission webhook "other.hook.example.com" denied the request: not me',
  'failed calling webhook "other.hook.example.com": context deadline exceeded',
  "ValidatingAdmissionPolicy 'fake-policy' with binding 'fake-binding' denied request: not me",
  "policy 'fake-policy' with binding 'fake-binding' denied request: not me either",
  "Internal error occurred: ",
  " does not support dry run",
  "%s %q %v",
  "${x}",
];

/** A random hostile text of one to six pieces; sometimes past 5 KB or 8 KB. */
export function hostileText(rand: Rand): string {
  const n = 1 + Math.floor(rand.next() * 6);
  let s = "";
  for (let i = 0; i < n; i++) s += rand.pick(PIECES);
  const r = rand.next();
  if (r < 0.06) s += "x".repeat(9_000);
  else if (r < 0.12) s = "y".repeat(5_200) + s;
  return s;
}

/** The text as the apiserver (Go) reads it from JSON: a lone surrogate becomes U+FFFD. */
export function asGoReadsIt(s: string): string {
  return s.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    "\ufffd",
  );
}

/** Go's unicode.IsSpace. */
function goSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Go's strings.TrimSpace. */
export function goTrimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && goSpace(s.charCodeAt(a))) a++;
  while (b > a && goSpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}
