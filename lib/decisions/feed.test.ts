import { describe, expect, it } from "vitest";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { storedAuditID } from "@/lib/admission/audit/audit-id";
import {
  decisionFilterParams,
  matchesDecisionFilter,
  parseDecisionFilter,
  readDecisionFilterLoosely,
} from "./filter";
import { applyLiveBatch, groupRepeats, mergeNewest } from "./group";
import { addToHistogram, bucketSizeFor, type DecisionHistogram } from "./histogram";

function rec(id: number, over: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    id,
    auditID: `a${id}`,
    stage: "ResponseComplete",
    time: 1_000_000 + id * 1000,
    kind: "validating-webhook",
    hook: "h.example.com",
    configuration: "",
    outcome: "denied",
    message: "no",
    request: {
      user: "alice",
      groups: [],
      verb: "create",
      operation: "CREATE",
      requestURI: "/api/v1/namespaces/a/configmaps",
      group: "",
      version: "v1",
      resource: "configmaps",
      subresource: "",
      namespace: "a",
      name: `cm${id}`,
      dryRun: false,
      latencies: {},
    },
    ...over,
  };
}

describe("decision filter", () => {
  it("round-trips through URL parameters", () => {
    const f = parseDecisionFilter(
      new URLSearchParams(
        "hook=h&outcome=denied&outcome=timeout&namespace=a&operation=CREATE&from=5",
      ),
    );
    expect(f).toEqual({
      hook: "h",
      outcome: ["denied", "timeout"],
      namespace: "a",
      operation: "CREATE",
      from: 5,
    });
    expect(parseDecisionFilter(decisionFilterParams(f))).toEqual(f);
  });

  it("refuses bad input on the API and drops it on the page", () => {
    expect(() => parseDecisionFilter(new URLSearchParams("outcome=maybe"))).toThrow();
    expect(() => parseDecisionFilter(new URLSearchParams("from=soon"))).toThrow();
    expect(
      readDecisionFilterLoosely(new URLSearchParams("outcome=maybe&outcome=denied&from=x&user=u")),
    ).toEqual({
      outcome: ["denied"],
      user: "u",
    });
  });

  it("matches like the SQL: hook only webhooks, policy only policies, time half-open", () => {
    const d = rec(1);
    const p = rec(2, { kind: "validating-policy", hook: "p" });
    const f = (q: string) => parseDecisionFilter(new URLSearchParams(q));
    expect(matchesDecisionFilter(d, f("hook=h.example.com"))).toBe(true);
    expect(matchesDecisionFilter(d, f("policy=h.example.com"))).toBe(false);
    expect(matchesDecisionFilter(p, f("policy=p"))).toBe(true);
    expect(matchesDecisionFilter(d, f("outcome=timeout"))).toBe(false);
    expect(matchesDecisionFilter(d, f(`from=${d.time}&to=${d.time + 1}`))).toBe(true);
    expect(matchesDecisionFilter(d, f(`to=${d.time}`))).toBe(false);
    expect(matchesDecisionFilter(d, f(`auditID=${d.auditID}`))).toBe(true);
    expect(matchesDecisionFilter(d, f("auditID=another"))).toBe(false);
  });

  it("filters by any service account, whose user name runs past 253 characters", () => {
    const sa = `system:serviceaccount:${"n".repeat(63)}:${"s".repeat(253)}`;
    const d = rec(1, { request: { ...rec(1).request, user: sa } });
    const f = parseDecisionFilter(new URLSearchParams({ user: sa }));
    expect(f.user).toBe(sa);
    expect(matchesDecisionFilter(d, f)).toBe(true);
    // The feed page keeps it rather than silently showing every user's decisions.
    expect(readDecisionFilterLoosely(new URLSearchParams({ user: sa })).user).toBe(sa);
    expect(() => parseDecisionFilter(new URLSearchParams({ user: "u".repeat(1025) }))).toThrow();
  });

  it("reads the webhook page's configuration from an API query, never from the feed page's URL", () => {
    expect(
      parseDecisionFilter(new URLSearchParams("hook=h&phase=validating&configuration=c")),
    ).toEqual({ hook: "h", phase: "validating", configuration: "c", outcome: [] });
    expect(() => parseDecisionFilter(new URLSearchParams("phase=both"))).toThrow(/phase/);
    // The feed's form shows the phase, not the configuration: a link holding that would filter
    // the page unseen.
    expect(
      readDecisionFilterLoosely(new URLSearchParams("hook=h&phase=validating&configuration=c")),
    ).toEqual({ hook: "h", phase: "validating", outcome: [] });
    expect(readDecisionFilterLoosely(new URLSearchParams("phase=both"))).toEqual({ outcome: [] });
  });

  it("tells apart a ValidatingAdmissionPolicy and a MutatingAdmissionPolicy that share a name by the phase", () => {
    const vap = rec(1, { kind: "validating-policy", hook: "p" });
    const map = rec(2, { kind: "mutating-policy", hook: "p" });
    const f = (q: string) => readDecisionFilterLoosely(new URLSearchParams(q));
    expect([vap, map].filter((d) => matchesDecisionFilter(d, f("policy=p")))).toHaveLength(2);
    expect(
      [vap, map].filter((d) => matchesDecisionFilter(d, f("policy=p&phase=mutating"))),
    ).toEqual([map]);
    expect(
      [vap, map].filter((d) => matchesDecisionFilter(d, f("policy=p&phase=validating"))),
    ).toEqual([vap]);
  });

  it("narrows the whole feed to one phase: its webhooks, its policies, and calls of unknown phase", () => {
    const kinds = [
      "mutating-webhook",
      "validating-webhook",
      "webhook",
      "mutating-policy",
      "validating-policy",
    ] as const;
    const all = kinds.map((kind, i) => rec(i + 1, { kind, hook: "x" }));
    const seen = (q: string) =>
      all
        .filter((d) => matchesDecisionFilter(d, readDecisionFilterLoosely(new URLSearchParams(q))))
        .map((d) => d.kind);
    expect(seen("phase=mutating")).toEqual(["mutating-webhook", "webhook", "mutating-policy"]);
    expect(seen("phase=validating")).toEqual([
      "validating-webhook",
      "webhook",
      "validating-policy",
    ]);
    expect(seen("hook=x&phase=validating")).toEqual(["validating-webhook", "webhook"]);
  });

  it("finds a request with a long Audit-ID by the ID its client sent and by the form shown", () => {
    const sent = `trace-${"a".repeat(130)}`;
    const d = rec(1, { auditID: storedAuditID(sent) });
    const f = (id: string) => parseDecisionFilter(new URLSearchParams({ auditID: id }));
    expect(matchesDecisionFilter(d, f(sent))).toBe(true);
    expect(matchesDecisionFilter(d, f(d.auditID))).toBe(true);
    expect(matchesDecisionFilter(d, f(`${sent}b`))).toBe(false);
  });
});

describe("grouping repeats", () => {
  it("folds adjacent decisions that differ only in object and time, keeping order", () => {
    const items = [rec(5), rec(4), rec(3, { outcome: "timeout", message: "t" }), rec(2), rec(1)];
    const g = groupRepeats(items);
    expect(g.map((x) => [x.first.id, x.count])).toEqual([
      [5, 2],
      [3, 1],
      [2, 2],
    ]);
    expect(g[0]?.oldest).toBe(rec(4).time);
  });

  it("never folds a dry run into real requests, nor one impersonator's requests into another's", () => {
    const dry = (id: number) => rec(id, { request: { ...rec(id).request, dryRun: true } });
    const as = (id: number, by: string) =>
      rec(id, { request: { ...rec(id).request, impersonatedBy: by } });
    // The row shows its newest decision's "dry run" badge: three real denials must not hide under it.
    expect(
      groupRepeats([dry(4), rec(3), rec(2), rec(1)]).map((x) => [x.first.id, x.count]),
    ).toEqual([
      [4, 1],
      [3, 3],
    ]);
    expect(groupRepeats([as(3, "bob"), as(2, "carol"), rec(1)]).map((x) => x.count)).toEqual([
      1, 1, 1,
    ]);
  });

  it("merges live decisions newest first without duplicates, capped", () => {
    const list = [rec(3), rec(2)];
    expect(mergeNewest(list, [rec(3), rec(5), rec(4)], 10).map((d) => d.id)).toEqual([5, 4, 3, 2]);
    expect(mergeNewest(list, [rec(5), rec(4)], 3).map((d) => d.id)).toEqual([5, 4, 3]);
    expect(mergeNewest(list, [rec(3), rec(2)], 10)).toBe(list);
  });

  it("merges decisions told after newer ones into their place (replicas commit concurrently)", () => {
    const list = mergeNewest([], [rec(111), rec(120)], 10);
    expect(mergeNewest(list, [rec(100), rec(110)], 10).map((d) => d.id)).toEqual([
      120, 111, 110, 100,
    ]);
    expect(mergeNewest(list, [rec(115), rec(115)], 10).map((d) => d.id)).toEqual([120, 115, 111]);
    // Older than everything a full list keeps: nothing to show.
    expect(mergeNewest(list, [rec(100)], 2).map((d) => d.id)).toEqual([120, 111]);
  });
});

describe("applyLiveBatch", () => {
  it("counts in the chart only decisions the list does not hold yet", () => {
    const histogram: DecisionHistogram = { bucketMs: 60_000, from: 0, to: 2_000_000, buckets: [] };
    const base = applyLiveBatch({ items: [], histogram }, [rec(1), rec(2)], 10, false);
    const total = (h: DecisionHistogram) => {
      let n = 0;
      for (const b of h.buckets) for (const c of Object.values(b.counts)) n += c ?? 0;
      return n;
    };
    expect(total(base.histogram)).toBe(2);
    // A batch held during a pause, delivered after a reload read the same decisions.
    const again = applyLiveBatch(base, [rec(2), rec(3), rec(3)], 10, false);
    expect(again.items.map((d) => d.id)).toEqual([3, 2, 1]);
    expect(total(again.histogram)).toBe(3);
  });
});

describe("histogram", () => {
  it("picks the smallest bucket that keeps the chart at 60 bars or fewer", () => {
    expect(bucketSizeFor(0, 3_600_000)).toBe(60_000);
    expect(bucketSizeFor(0, 600_000)).toBe(10_000);
    expect(bucketSizeFor(0, 86_400_000)).toBe(3_600_000);
  });

  it("adds live decisions, growing an open window and ignoring what falls outside a closed one", () => {
    const h = {
      bucketMs: 60_000,
      from: 0,
      to: 120_000,
      buckets: [{ start: 0, counts: { denied: 1 } }],
    };
    const open = addToHistogram(
      h,
      [
        { time: 30_000, outcome: "denied" },
        { time: 130_000, outcome: "timeout" },
      ],
      true,
    );
    expect(open.buckets).toEqual([
      { start: 0, counts: { denied: 2 } },
      { start: 120_000, counts: { timeout: 1 } },
    ]);
    expect(open.to).toBe(130_001);
    expect(h.buckets[0]?.counts.denied).toBe(1);
    const closed = addToHistogram(h, [{ time: 130_000, outcome: "timeout" }], false);
    expect(closed.buckets).toEqual(h.buckets);
  });
});
