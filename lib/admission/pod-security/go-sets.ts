/**
 * Go's string ordering and `sets.String.List()` / `sets.List`, as the PodSecurity checks use them
 * to list forbidden values. Go compares strings byte by byte (UTF-8), which is code point order;
 * JavaScript's default sort compares UTF-16 code units, which differs for code points above U+FFFF
 * against U+E000–U+FFFF.
 */

/** A UTF-16 code unit remapped so that code unit order equals code point order. */
const rank = (c: number) => (c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);

/** Go's `a < b` for strings, as a comparator. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/** `sort.Strings`: a sorted copy. */
export const goSortStrings = (items: Iterable<string>): string[] =>
  [...items].sort(compareGoStrings);

/** `sets.List(sets.New(items...))`: the distinct items, sorted. */
export const goSetList = (items: Iterable<string>): string[] => goSortStrings(new Set(items));
