/**
 * Reconcile fights: two field managers changing the same field of an admission configuration back
 * and forth. Fed every version of every object a watch delivers, it attributes each changed field
 * to the manager that owns it in the new version (preferring one whose managedFields entry
 * changed in that version) and raises a fight when one field's changes, within the window, go
 * A → B → A between two managers.
 *
 * A field is a leaf of the managed-field sets (a member with no member below it): a scalar, a
 * keyed item's field, or a whole atomic unit (a selector, the rules); metadata is not watched.
 */
import { canonicalJson, membersOf, pathString, valueAt, type FieldPath } from "./fields-v1";
import type { ManagedFieldsEntry, ManagedObject } from "./provenance";

/** One change of a field, by a manager, at a time (ms since the epoch). */
export interface FieldChange {
  readonly manager: string;
  readonly at: number;
}

/** A fight as a finding. */
export interface ReconcileFight {
  readonly id: "reconcile-fight";
  readonly severity: "medium";
  readonly kind: string;
  readonly name: string;
  /** The field, as the apiserver prints a field path. */
  readonly path: string;
  /** The two managers, the one that changed it first first. */
  readonly managers: readonly [string, string];
  /** Its changes within the window, oldest first (at most MAX_CHANGES). */
  readonly changes: readonly FieldChange[];
  readonly title: string;
  readonly explanation: string;
}

/**
 * An object deleted and created again under the same name within the window: what an engine or
 * operator that owns its configuration does (an edit made by hand lasts until the next time).
 */
export interface Recreation {
  readonly kind: string;
  readonly name: string;
  /** Each deletion followed by a creation within the window, oldest first. */
  readonly cycles: ReadonlyArray<{ readonly deletedAt: number; readonly createdAt: number }>;
  /** The manager that wrote most of the latest version (its creator). */
  readonly by?: string;
}

/** Changes kept per field. */
const MAX_CHANGES = 12;

export interface FightDetectorOptions {
  /** A flip counts toward a fight while its changes fall within this span (default 10 minutes). */
  readonly windowMs?: number;
  /** A fight is reported until this long after its last change (default 30 minutes). */
  readonly retainMs?: number;
}

interface Version {
  readonly obj: ManagedObject;
  /** Member path strings per manager key, and the entry's time. */
  readonly entries: ReadonlyMap<string, { time: string; members: ReadonlySet<string> }>;
  /** Leaf member paths over every manager. */
  readonly leaves: ReadonlyMap<string, FieldPath>;
}

function managerKey(e: ManagedFieldsEntry): string {
  return `${e.manager ?? ""}\u0000${e.operation ?? ""}\u0000${e.subresource ?? ""}`;
}

function versionOf(obj: ManagedObject): Version {
  const entries = new Map<string, { time: string; members: Set<string> }>();
  const all = new Map<string, FieldPath>();
  for (const e of obj.metadata?.managedFields ?? []) {
    const members = membersOf(e.fieldsV1).filter(
      (m) => !("field" in m[0]! && m[0].field === "metadata"),
    );
    const set = new Set<string>();
    for (const m of members) {
      const p = pathString(m);
      set.add(p);
      all.set(p, m);
    }
    entries.set(managerKey(e), { time: e.time ?? "", members: set });
  }
  const leaves = new Map<string, FieldPath>();
  const prefixes = new Set<string>();
  for (const m of all.values())
    for (let n = 1; n < m.length; n++) prefixes.add(pathString(m.slice(0, n)));
  for (const [p, m] of all) if (!prefixes.has(p)) leaves.set(p, m);
  return { obj, entries, leaves };
}

function nameOf(key: string): string {
  return key.split("\u0000")[0] ?? "";
}

/** The manager that made a field's change from `prev` to `next`. */
function changer(prev: Version, next: Version, path: string): string | undefined {
  const changedEntry = (k: string) => {
    const before = prev.entries.get(k);
    const after = next.entries.get(k);
    if (!after) return false;
    if (!before || before.time !== after.time) return true;
    if (before.members.size !== after.members.size) return true;
    for (const m of after.members) if (!before.members.has(m)) return true;
    return false;
  };
  const owners = [...next.entries].filter(([, e]) => e.members.has(path)).map(([k]) => k);
  const moved = owners.filter(changedEntry);
  if (moved.length > 0) return nameOf(moved[0]!);
  if (owners.length > 0) return nameOf(owners[0]!);
  // The field is gone: whoever dropped it had it before and changed its entry now.
  const dropped = [...prev.entries]
    .filter(([k, e]) => e.members.has(path) && changedEntry(k))
    .map(([k]) => k);
  if (dropped.length > 0) return nameOf(dropped[0]!);
  const anyChanged = [...next.entries.keys()].filter(changedEntry);
  return anyChanged.length === 1 ? nameOf(anyChanged[0]!) : undefined;
}

interface FieldHistory {
  changes: FieldChange[];
  fight?: { managers: [string, string]; since: number };
}

export class FightDetector {
  private readonly windowMs: number;
  private readonly retainMs: number;
  private readonly last = new Map<string, Version>();
  private readonly history = new Map<string, Map<string, FieldHistory>>();
  private readonly deleted = new Map<string, number>();
  private readonly recreated = new Map<
    string,
    { cycles: Array<{ deletedAt: number; createdAt: number }>; by?: string }
  >();

  constructor(opts: FightDetectorOptions = {}) {
    this.windowMs = opts.windowMs ?? 10 * 60_000;
    this.retainMs = opts.retainMs ?? 30 * 60_000;
  }

  /** One version of an object (from a list, ADDED or MODIFIED), seen at `at`. */
  observe(kind: string, obj: ManagedObject, at: number): void {
    const key = `${kind}/${obj.metadata?.name ?? ""}`;
    const next = versionOf(obj);
    const prev = this.last.get(key);
    this.last.set(key, next);
    if (!prev) {
      this.noteCreation(key, next, at);
      return;
    }
    const paths = new Map([...prev.leaves, ...next.leaves]);
    for (const [p, path] of paths) {
      const before = canonicalJson(valueAt(prev.obj, path));
      const after = canonicalJson(valueAt(next.obj, path));
      if (before === after) continue;
      const manager = changer(prev, next, p);
      if (!manager) continue;
      this.record(key, p, { manager, at });
    }
  }

  /**
   * The object was deleted at `at`: its versions are forgotten (its fights stay until they age
   * out), and a creation under its name within the window counts as a re-creation.
   */
  forget(kind: string, name: string, at: number): void {
    const key = `${kind}/${name}`;
    this.last.delete(key);
    this.deleted.set(key, at);
  }

  private noteCreation(key: string, v: Version, at: number): void {
    const deletedAt = this.deleted.get(key);
    if (deletedAt === undefined) return;
    this.deleted.delete(key);
    if (at - deletedAt > this.windowMs) return;
    let r = this.recreated.get(key);
    if (!r) this.recreated.set(key, (r = { cycles: [] }));
    r.cycles = [...r.cycles, { deletedAt, createdAt: at }].slice(-MAX_CHANGES);
    // The creator: the manager with the most fields of the new version.
    let best: { name: string; n: number } | undefined;
    for (const [k, e] of v.entries)
      if (!best || e.members.size > best.n) best = { name: nameOf(k), n: e.members.size };
    if (best) r.by = best.name;
    else delete r.by;
  }

  /** The objects re-created within the retention before `now`. */
  recreations(now: number): Recreation[] {
    const out: Recreation[] = [];
    for (const [key, r] of this.recreated) {
      r.cycles = r.cycles.filter((c) => c.createdAt >= now - this.retainMs);
      if (r.cycles.length === 0) {
        this.recreated.delete(key);
        continue;
      }
      const slash = key.indexOf("/");
      out.push({
        kind: key.slice(0, slash),
        name: key.slice(slash + 1),
        cycles: r.cycles,
        ...(r.by ? { by: r.by } : {}),
      });
    }
    return out;
  }

  private record(key: string, path: string, change: FieldChange): void {
    let fields = this.history.get(key);
    if (!fields) this.history.set(key, (fields = new Map()));
    let h = fields.get(path);
    if (!h) fields.set(path, (h = { changes: [] }));
    h.changes.push(change);
    h.changes = h.changes.filter((c) => c.at >= change.at - this.windowMs).slice(-MAX_CHANGES);
    const [a, b, c] = h.changes.slice(-3);
    if (a && b && c && a.manager === c.manager && a.manager !== b.manager) {
      const managers: [string, string] = [a.manager, b.manager];
      const same =
        h.fight && h.fight.managers.includes(a.manager) && h.fight.managers.includes(b.manager);
      if (!same) h.fight = { managers, since: a.at };
    }
  }

  /** The fights seen, those with a change within the retention before `now`. */
  fights(now: number): ReconcileFight[] {
    const out: ReconcileFight[] = [];
    for (const [key, fields] of this.history) {
      const slash = key.indexOf("/");
      const kind = key.slice(0, slash);
      const name = key.slice(slash + 1);
      for (const [path, h] of fields) {
        const lastAt = h.changes[h.changes.length - 1]?.at ?? 0;
        if (lastAt < now - this.retainMs) {
          fields.delete(path);
          continue;
        }
        if (!h.fight) continue;
        const [a, b] = h.fight.managers;
        const changes = h.changes.filter((c) => c.at >= h.fight!.since);
        out.push({
          id: "reconcile-fight",
          severity: "medium",
          kind,
          name,
          path,
          managers: [a, b],
          changes,
          title: `${a} and ${b} keep changing ${path}`,
          explanation:
            `${changes.length} changes of ${path} of ${kind} ${name} alternate between the field managers ${a} and ${b}: ` +
            "each writes the field back after the other changed it. Until one of them stops managing it (or the two agree on its value), " +
            "the configuration flips, and requests are admitted under either version.",
        });
      }
      if (fields.size === 0) this.history.delete(key);
    }
    return out.sort(
      (x, y) =>
        x.kind.localeCompare(y.kind) ||
        x.name.localeCompare(y.name) ||
        x.path.localeCompare(y.path),
    );
  }
}
