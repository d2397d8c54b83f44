/**
 * Three-way merge of JSON objects for the conflict view: `base` is what the admin started from,
 * `mine` their edit, `theirs` what is stored now. Changes on different paths combine; a path both
 * sides changed differently is a conflict (mine is kept there, and reported). Lists of named
 * items (webhooks, rules with names) merge by `name`; their order is merged too, and an order
 * both sides changed is a conflict. Pure.
 */
type J = null | boolean | number | string | J[] | { [k: string]: J };

export interface MergeResult {
  merged: J;
  conflicts: string[];
}

const eq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isObj = (v: unknown): v is { [k: string]: J } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function named(a: unknown): a is Array<{ name: string } & { [k: string]: J }> {
  return (
    Array.isArray(a) &&
    a.every((x) => isObj(x) && typeof x.name === "string") &&
    new Set(a.map((x) => (x as { name: string }).name)).size === a.length
  );
}

/** Does `side` keep the base's names in the base's order (removals allowed, nothing added or moved)? */
function onlyRemoves(base: string[], side: string[]): boolean {
  const kept = new Set(side);
  return eq(
    side,
    base.filter((n) => kept.has(n)),
  );
}

/** Each name `side` added, grouped by the base name it follows there ("" for the head). */
function insertions(base: string[], side: string[]): Map<string, string[]> {
  const inBase = new Set(base);
  const out = new Map<string, string[]>();
  let after = "";
  for (const n of side) {
    if (inBase.has(n)) after = n;
    else out.set(after, [...(out.get(after) ?? []), n]);
  }
  return out;
}

/**
 * The order of a merged named list. The order can matter (mutating hooks are called in list
 * order, variables see the ones before them), so a place neither side chose is a conflict: one
 * side's order is taken only when the other kept the base's (removals aside); insertions on both
 * sides combine when they are in different places; anything else is reported.
 */
function mergedOrder(
  base: string[],
  mine: string[],
  theirs: string[],
  at: string,
  conflicts: string[],
): string[] {
  if (onlyRemoves(base, mine)) return theirs;
  if (onlyRemoves(base, theirs)) return mine;
  const sameOrder = (side: string[]) => {
    const inSide = new Set(side);
    return eq(
      side.filter((n) => base.includes(n)),
      base.filter((n) => inSide.has(n)),
    );
  };
  const m = insertions(base, mine);
  const t = insertions(base, theirs);
  const theirsAdded = new Set([...t.values()].flat());
  if (
    sameOrder(mine) &&
    sameOrder(theirs) &&
    ![...m.keys()].some((k) => t.has(k)) &&
    ![...m.values()].flat().some((n) => theirsAdded.has(n))
  ) {
    // Both only inserted (and removed), in different places: each insertion keeps its place.
    const out: string[] = [];
    for (const anchor of ["", ...base]) {
      if (anchor !== "") out.push(anchor);
      out.push(...(t.get(anchor) ?? []), ...(m.get(anchor) ?? []));
    }
    return out;
  }
  conflicts.push(at);
  // Mine's order, as for any conflict; names only they have go last.
  const order = [...mine];
  for (const n of [...theirs, ...mine]) if (!order.includes(n)) order.push(n);
  return order;
}

function merge(
  base: J | undefined,
  mine: J | undefined,
  theirs: J | undefined,
  path: string,
  conflicts: string[],
): J | undefined {
  if (eq(mine, base)) return theirs;
  if (eq(theirs, base)) return mine;
  if (eq(mine, theirs)) return mine;
  if (isObj(base) && isObj(mine) && isObj(theirs)) {
    const out: { [k: string]: J } = {};
    const keys = new Set([...Object.keys(theirs), ...Object.keys(mine)]);
    for (const k of keys) {
      const v = merge(base[k], mine[k], theirs[k], `${path}/${k}`, conflicts);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (named(base) && named(mine) && named(theirs)) {
    const byName = (a: Array<{ name: string }>) => new Map(a.map((x) => [x.name, x as J]));
    const b = byName(base);
    const m = byName(mine);
    const t = byName(theirs);
    const order = mergedOrder(
      base.map((x) => x.name),
      mine.map((x) => x.name),
      theirs.map((x) => x.name),
      `${path} (order)`,
      conflicts,
    );
    const out: J[] = [];
    for (const n of order) {
      const v = merge(b.get(n), m.get(n), t.get(n), `${path}[${n}]`, conflicts);
      if (v !== undefined) out.push(v);
    }
    return out;
  }
  conflicts.push(path || "/");
  return mine;
}

/** Merges `mine` onto `theirs` relative to `base`. */
export function merge3(base: unknown, mine: unknown, theirs: unknown): MergeResult {
  const conflicts: string[] = [];
  const merged = merge(base as J, mine as J, theirs as J, "", conflicts) ?? null;
  return { merged, conflicts };
}
