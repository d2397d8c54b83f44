import { describe, expect, it } from "vitest";
import type { BeforeAfter, WindowStats } from "./effects";
import type { ChangeMarker } from "./timeline";
import { cellText, compareRows, COMPACT_ROWS, shownRows } from "./compare-rows";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const W = 15 * 60_000;
const stats = (over: Partial<WindowStats> = {}): WindowStats => ({
  calls: 10,
  denials: 0,
  errors: 0,
  failOpens: 0,
  timeouts: 0,
  ...over,
});
const comparison = (
  changeId: number,
  at: number,
  after: Partial<WindowStats> = {},
): BeforeAfter & { changeId: number } => ({
  changeId,
  at,
  windowMs: W,
  before: stats({ p99Ms: 4 }),
  after: stats(after),
});
const marker = (id: number, time: number, who: string): ChangeMarker => ({
  id,
  time,
  kind: "ValidatingWebhookConfiguration",
  name: "c",
  operation: "update",
  who,
  source: "audit",
});

describe("the before/after table of a hook's changes", () => {
  it("has a row per change, newest first, described by its marker, the worse afters marked", () => {
    const rows = compareRows(
      [
        comparison(1, T0, { calls: 20 }),
        comparison(2, T0 + 60_000, { errors: 7, p99Ms: 900 }),
        comparison(3, T0 + 120_000),
      ],
      [marker(1, T0, "alice"), marker(2, T0 + 60_000, "bob")],
    );
    expect(rows.map((r) => [r.changeId, r.who, r.worse])).toEqual([
      [3, undefined, false],
      [2, "bob", true],
      [1, "alice", false],
    ]);
    const bob = rows[1]!;
    expect(bob.cells.map((c) => [c.key, cellText(c), c.worse])).toEqual([
      ["calls", "10 → 10", false],
      ["denials", "0 → 0", false],
      ["errors", "0 → 7", true],
      ["failOpens", "0 → 0", false],
      ["timeouts", "0 → 0", false],
      ["p99Ms", "4 → 900", true],
    ]);
    // More decisions after a change is not worse; an unmeasured p99 is a dash.
    expect(rows[2]?.cells.map((c) => [cellText(c), c.worse])).toEqual([
      ["10 → 20", false],
      ["0 → 0", false],
      ["0 → 0", false],
      ["0 → 0", false],
      ["0 → 0", false],
      ["4 → —", false],
    ]);
    expect(rows[0]?.at).toBe(T0 + 120_000);
  });

  it("shows the newest few and folds the rest, saying how many of those jumped", () => {
    const rows = compareRows(
      Array.from({ length: 8 }, (_, i) =>
        comparison(i + 1, T0 + i * 60_000, i < 2 ? { denials: 3 } : {}),
      ),
      [],
    );
    const folded = shownRows(rows, false);
    expect(folded.shown.map((r) => r.changeId)).toEqual([8, 7, 6].slice(0, COMPACT_ROWS));
    expect(folded.hidden).toBe(8 - COMPACT_ROWS);
    expect(folded.hiddenWorse).toBe(2);
    const open = shownRows(rows, true);
    expect(open.shown).toHaveLength(8);
    expect(open.hidden).toBe(0);
    expect(shownRows(rows.slice(0, 2), false)).toEqual({
      shown: rows.slice(0, 2),
      hidden: 0,
      hiddenWorse: 0,
    });
  });
});
