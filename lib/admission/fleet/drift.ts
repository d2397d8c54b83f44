/**
 * Drift: the same webhook configuration, admission policy or binding (by kind and name) compared
 * across the clusters of a fleet, field by field. Pure; the fleet page recomputes it as each
 * cluster's row arrives or changes.
 */
import type { Comparable, ComparableKind } from "./comparable";

/** One cluster's objects, or why they are not known. */
export interface DriftInput {
  readonly cluster: string;
  /** Undefined: the cluster could not be read (it is left out of the comparison). */
  readonly objects: readonly Comparable[] | undefined;
}

/** One field of one object across the clusters that hold the object. */
interface DriftField {
  readonly field: string;
  /** Cluster → the field's text; a cluster holding the object without the field reads "absent". */
  readonly values: Readonly<Record<string, string>>;
  readonly differs: boolean;
}

/** One object (kind and name) across the fleet. */
export interface DriftEntry {
  readonly kind: ComparableKind;
  readonly name: string;
  /** The clusters that hold it, in input order. */
  readonly present: readonly string[];
  /** The clusters that were read and do not hold it. */
  readonly missing: readonly string[];
  readonly fields: readonly DriftField[];
  /** Some field differs, or some read cluster lacks the object. */
  readonly differs: boolean;
}

const ABSENT = "absent";

/**
 * Every object any read cluster holds, compared across the read clusters; sorted by kind, then
 * name. Fields in the order the first holder lists them, then any others in name order.
 */
export function fleetDrift(inputs: readonly DriftInput[]): DriftEntry[] {
  const read = inputs.filter((i) => i.objects !== undefined);
  const byKey = new Map<
    string,
    { kind: ComparableKind; name: string; at: Map<string, Comparable> }
  >();
  for (const { cluster, objects } of read) {
    for (const o of objects ?? []) {
      const key = `${o.kind}\u0000${o.name}`;
      let e = byKey.get(key);
      if (!e) {
        e = { kind: o.kind, name: o.name, at: new Map() };
        byKey.set(key, e);
      }
      e.at.set(cluster, o);
    }
  }
  const out: DriftEntry[] = [];
  for (const e of byKey.values()) {
    const present = read.map((r) => r.cluster).filter((c) => e.at.has(c));
    const missing = read.map((r) => r.cluster).filter((c) => !e.at.has(c));
    const names: string[] = [];
    const seen = new Set<string>();
    for (const c of present)
      for (const f of Object.keys(e.at.get(c)?.fields ?? {}))
        if (!seen.has(f)) {
          seen.add(f);
          names.push(f);
        }
    const fields = names.map((field): DriftField => {
      const values: Record<string, string> = {};
      for (const c of present) values[c] = e.at.get(c)?.fields[field] ?? ABSENT;
      return { field, values, differs: new Set(Object.values(values)).size > 1 };
    });
    out.push({
      kind: e.kind,
      name: e.name,
      present,
      missing,
      fields,
      differs: missing.length > 0 || fields.some((f) => f.differs),
    });
  }
  return out.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

/** The entries (and within each, the fields) that differ: the page's "only what differs". */
export function onlyDiffering(entries: readonly DriftEntry[]): DriftEntry[] {
  return entries
    .filter((e) => e.differs)
    .map((e) => ({ ...e, fields: e.fields.filter((f) => f.differs) }));
}
