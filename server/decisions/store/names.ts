/**
 * The names of decision rows: few distinct texts, repeated row after row (the stage, decider
 * kind, hook, configuration, outcome, namespace, user, resource and operation). Each column of
 * them holds the id of its text in admission_names instead of the text. A row is then about a
 * third as long: storing 200,000 recorded events, SQLite's row inserts took a third less time and
 * its commits a quarter less, and the table took 1,700 pages of 16 KB instead of 4,100.
 */
import "server-only";
import { createHash } from "node:crypto";
import type { Sql, SqlTx } from "../sql";
import { NAMES } from "./schema";

/**
 * A name's unique key in admission_names: "=" and the text, or "#" and its SHA-256 for a text
 * longer than a PostgreSQL index entry may be or holding a NUL character (which PostgreSQL's text
 * cannot hold: there the text reads U+FFFD instead, see ../postgres.ts, but the key keeps it
 * apart).
 */
function nameKey(text: string): string {
  return text.length <= 512 && !text.includes("\u0000")
    ? `=${text}`
    : `#${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/** The text of the name a column's id stands for. */
export const nameOf = (column: string) => `(SELECT n.text FROM ${NAMES} n WHERE n.id = ${column})`;

/** A named column equal to `text` (never true for a text no row has). */
export const namedIs = (column: string, text: string): Sql => ({
  text: `${column} = (SELECT n.id FROM ${NAMES} n WHERE n.key = ?)`,
  params: [nameKey(text)],
});

/** A named column equal to one of `texts`. */
export function namedIn(column: string, texts: readonly string[]): Sql {
  return {
    text: `${column} IN (SELECT n.id FROM ${NAMES} n WHERE n.key IN (${texts.map(() => "?").join(", ")}))`,
    params: texts.map(nameKey),
  };
}

/** Most names NameIds keeps in memory (beyond it, it starts again from none). */
const MAX_KNOWN_NAMES = 100_000;
/** Most keys one statement looks up. */
const NAMES_PER_READ = 500;

/**
 * The ids of names by text: those committed, and those the transaction in progress
 * stored or looked up (`fresh`), kept once it commits and forgotten if it does not (ids of a
 * rolled-back insert may be given again to other names). Names are never deleted, so a kept id
 * stays right, whichever process stored it.
 */
export class NameIds {
  private known = new Map<string, number>();
  private fresh = new Map<string, number>();

  id(text: string): number | undefined {
    return this.known.get(text) ?? this.fresh.get(text);
  }

  /** Stores the names of `texts` not stored yet (in `tx`), and learns every one's id. */
  async add(tx: SqlTx, texts: string[]): Promise<void> {
    const keys = texts.map(nameKey);
    const ids = await tx.insert({
      table: NAMES,
      columns: ["key", "text"],
      conflict: ["key"],
      rows: texts.map((t, i) => [keys[i] as string, t]),
    });
    const stored = new Map<string, string>();
    ids.forEach((id, i) => {
      if (id !== undefined) this.fresh.set(texts[i] as string, id);
      else stored.set(keys[i] as string, texts[i] as string);
    });
    const wanted = [...stored.keys()];
    for (let i = 0; i < wanted.length; i += NAMES_PER_READ) {
      const part = wanted.slice(i, i + NAMES_PER_READ);
      const rows = await tx.query<{ id: number | string; key: string }>({
        text: `SELECT id, key FROM ${NAMES} WHERE key IN (${part.map(() => "?").join(", ")})`,
        params: part,
      });
      for (const r of rows) {
        const text = stored.get(r.key);
        if (text !== undefined) this.fresh.set(text, Number(r.id));
      }
    }
  }

  /** After the transaction: keeps what it learnt if it committed. */
  settle(committed: boolean): void {
    if (committed && this.fresh.size > 0) {
      if (this.known.size + this.fresh.size > MAX_KNOWN_NAMES) this.known = new Map();
      for (const [text, id] of this.fresh) this.known.set(text, id);
    }
    if (this.fresh.size > 0) this.fresh = new Map();
  }
}

/**
 * The rows `build` makes with the ids of their names, storing in `tx` first the names they have
 * that are not stored yet (`build` is then run again).
 */
export async function withNameIds<T>(
  tx: SqlTx,
  names: NameIds,
  build: (id: (text: string) => number) => T,
): Promise<T> {
  let missing: Set<string> | undefined;
  const id = (text: string): number => {
    const v = names.id(text);
    if (v !== undefined) return v;
    (missing ??= new Set()).add(text);
    return 0;
  };
  const rows = build(id);
  if (!missing) return rows;
  await names.add(tx, [...missing]);
  return build((text) => names.id(text) ?? 0);
}
