/** The apiserver's configuration order by name (pure, and light enough for any page). */
export interface Named {
  readonly metadata?: { readonly name?: string };
}

/** Byte-wise name order, as `a.Name < b.Name` in Go (stable). */
export function byName<T extends Named>(items: readonly T[]): T[] {
  const nameOf = (x: T): string => x.metadata?.name ?? "";
  return items
    .map((item, i) => ({ item, i, key: utf8Key(nameOf(item)) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
    .map((x) => x.item);
}

// JS compares UTF-16 code units; Go compares bytes. They agree except around surrogates, so
// names are mapped to a string whose code units are the UTF-8 bytes.
function utf8Key(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  return String.fromCharCode(...new TextEncoder().encode(s));
}
