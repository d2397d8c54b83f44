import { describe, expect, it } from "vitest";
import { summarizeTallies, type DecisionTally } from "./tally";

const t = (
  hook: string,
  outcome: DecisionTally["outcome"],
  count: number,
  kind: DecisionTally["kind"] = "validating-webhook",
  last = 1000,
): DecisionTally => ({ kind, hook, outcome, count, last });

describe("summarizeTallies", () => {
  it("puts deciders that failed to do their job first (most such calls first), then refusals, then notes; quiet ones only counted", () => {
    const s = summarizeTallies([
      t("quiet.example.com", "admitted", 500),
      t("deny.example.com", "denied", 40),
      t("deny.example.com", "admitted", 10, "validating-webhook", 5000),
      t("slow.example.com", "timeout", 2, "validating-webhook", 3000),
      t("slow.example.com", "admitted", 90),
      t("open.example.com", "failed-open", 1, "mutating-webhook"),
      t("warn-policy", "warned", 7, "validating-policy"),
    ]);
    expect(s.troubled.map((d) => d.name)).toEqual([
      "slow.example.com",
      "open.example.com",
      "deny.example.com",
      "warn-policy",
    ]);
    expect(s.troubled.find((d) => d.name === "slow.example.com")).toMatchObject({
      field: "hook",
      counts: { timeout: 2, admitted: 90 },
      byTone: { alarm: 2, ok: 90, refused: 0, note: 0 },
      total: 92,
      lastTrouble: 3000,
    });
    // The newest of its refusals, not of everything it decided.
    expect(s.troubled.find((d) => d.name === "deny.example.com")?.lastTrouble).toBe(1000);
    expect(s.troubled.find((d) => d.name === "warn-policy")?.field).toBe("policy");
    expect(s.quiet).toBe(1);
    expect(s.total).toBe(650);
    expect(s.byTone).toEqual({ ok: 600, refused: 40, alarm: 3, note: 7 });
  });

  it("keeps a webhook and a policy of the same name apart, and ignores what it does not know", () => {
    const s = summarizeTallies([
      t("same", "denied", 1, "validating-webhook"),
      t("same", "rejected", 2, "validating-policy"),
      t("x", "no-such-outcome" as DecisionTally["outcome"], 5),
      t("y", "denied", 0),
    ]);
    expect(s.troubled.map((d) => [d.field, d.name, d.total])).toEqual([
      ["policy", "same", 2],
      ["hook", "same", 1],
    ]);
    expect(s.total).toBe(3);
    expect(s.quiet).toBe(0);
  });
});
