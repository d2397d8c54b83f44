/**
 * `sets.NewString(...).List()` of k8s.io/apimachinery: the distinct strings, sorted as Go's
 * `sort.Strings` sorts them (byte-wise over UTF-8). JS compares UTF-16 code units, which orders
 * characters above U+FFFF before U+E000–U+FFFF; Go orders them after.
 */
export function sortedStringSet(items: Iterable<string>): string[] {
  return [...new Set(items)]
    .map((s) => ({ s, key: utf8Key(s) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((x) => x.s);
}

// A string whose code units are the UTF-8 bytes of s, so that JS string order is byte order.
function utf8Key(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  let out = "";
  for (const b of new TextEncoder().encode(s)) out += String.fromCharCode(b);
  return out;
}
