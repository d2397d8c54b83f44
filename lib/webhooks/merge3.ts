/**
 * Three-way merge of JSON objects for the conflict view: `base` is what the admin started from,
 * `mine` their edit, `theirs` what is stored now. Changes on different paths combine; a path both
 * sides changed differently is a conflict (mine is kept there, and reported). Lists of named
 * items (webhooks, rules with names) merge by `name`. Pure.
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
    // Order: mine's order if mine reordered, else theirs'; names only the other side added go last.
    const mineReordered = !eq(
      mine.map((x) => x.name).filter((n) => b.has(n)),
      base.map((x) => x.name).filter((n) => m.has(n)),
    );
    const order = mineReordered ? mine.map((x) => x.name) : theirs.map((x) => x.name);
    for (const n of [...t.keys(), ...m.keys()]) if (!order.includes(n)) order.push(n);
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
