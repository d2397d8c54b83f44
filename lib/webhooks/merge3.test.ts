import { describe, expect, it } from "vitest";
import { merge3 } from "./merge3";
import { parseSelectorText, selectorText } from "./selector-text";
import { apiErrorMarkers } from "./editor-markers";
import { isApiserverVerdict } from "@/lib/k8s/errors";

const base = {
  metadata: { name: "x", resourceVersion: "1" },
  webhooks: [
    { name: "a.x.io", timeoutSeconds: 10, failurePolicy: "Fail" },
    { name: "b.x.io", timeoutSeconds: 10 },
  ],
};

describe("merge3", () => {
  it("combines changes to different fields of the same hook and takes the new resourceVersion", () => {
    const theirs = structuredClone(base);
    theirs.metadata.resourceVersion = "2";
    theirs.webhooks[0]!.timeoutSeconds = 7;
    const mine = structuredClone(base);
    mine.webhooks[0]!.failurePolicy = "Ignore";
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(r.merged).toEqual({
      metadata: { name: "x", resourceVersion: "2" },
      webhooks: [
        { name: "a.x.io", timeoutSeconds: 7, failurePolicy: "Ignore" },
        { name: "b.x.io", timeoutSeconds: 10 },
      ],
    });
  });

  it("reports a field both sides changed differently and keeps mine there", () => {
    const theirs = structuredClone(base);
    theirs.webhooks[1]!.timeoutSeconds = 3;
    const mine = structuredClone(base);
    mine.webhooks[1]!.timeoutSeconds = 4;
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual(["/webhooks[b.x.io]/timeoutSeconds"]);
    expect((r.merged as typeof base).webhooks[1]!.timeoutSeconds).toBe(4);
  });

  it("keeps a reorder made on my side and a hook they added", () => {
    const theirs = structuredClone(base);
    theirs.webhooks.push({ name: "c.x.io", timeoutSeconds: 1 });
    const mine = structuredClone(base);
    mine.webhooks.reverse();
    const r = merge3(base, mine, theirs);
    expect((r.merged as typeof base).webhooks.map((w) => w.name)).toEqual([
      "b.x.io",
      "a.x.io",
      "c.x.io",
    ]);
  });
});

describe("merge3: the order of named lists (mutating hooks run in list order)", () => {
  const names = (r: { merged: unknown }) => (r.merged as typeof base).webhooks.map((w) => w.name);

  it("keeps a hook I inserted where I put it when they only changed a field", () => {
    const theirs = structuredClone(base);
    theirs.metadata.resourceVersion = "2";
    theirs.webhooks[1]!.timeoutSeconds = 3;
    const mine = structuredClone(base);
    mine.webhooks.unshift({ name: "first.x.io", timeoutSeconds: 1 });
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(names(r)).toEqual(["first.x.io", "a.x.io", "b.x.io"]);
    expect((r.merged as typeof base).webhooks[2]!.timeoutSeconds).toBe(3);
  });

  it("keeps a hook they inserted where they put it when I only changed a field", () => {
    const theirs = structuredClone(base);
    theirs.webhooks.unshift({ name: "first.x.io", timeoutSeconds: 1 });
    const mine = structuredClone(base);
    mine.webhooks[0]!.failurePolicy = "Ignore";
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(names(r)).toEqual(["first.x.io", "a.x.io", "b.x.io"]);
  });

  it("reports an order both sides changed: no call order is chosen for the admin silently", () => {
    const three = structuredClone(base);
    three.webhooks.push({ name: "c.x.io", timeoutSeconds: 10 });
    const mine = structuredClone(three);
    mine.webhooks = [mine.webhooks[1]!, mine.webhooks[0]!, mine.webhooks[2]!]; // b a c
    const theirs = structuredClone(three);
    theirs.webhooks = [theirs.webhooks[0]!, theirs.webhooks[2]!, theirs.webhooks[1]!]; // a c b
    const r = merge3(three, mine, theirs);
    expect(r.conflicts).toEqual(["/webhooks (order)"]);
    expect(names(r)).toEqual(["b.x.io", "a.x.io", "c.x.io"]);
  });

  it("reports my reorder against a hook they inserted: where it goes is a choice", () => {
    const theirs = structuredClone(base);
    theirs.webhooks.unshift({ name: "first.x.io", timeoutSeconds: 1 });
    const mine = structuredClone(base);
    mine.webhooks.reverse();
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual(["/webhooks (order)"]);
    expect(names(r).sort()).toEqual(["a.x.io", "b.x.io", "first.x.io"]);
  });

  it("combines insertions in different places, and reports one hook both added in different places", () => {
    const mine = structuredClone(base);
    mine.webhooks.unshift({ name: "first.x.io", timeoutSeconds: 1 });
    const theirs = structuredClone(base);
    theirs.webhooks.push({ name: "last.x.io", timeoutSeconds: 1 });
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(names(r)).toEqual(["first.x.io", "a.x.io", "b.x.io", "last.x.io"]);
    theirs.webhooks.pop();
    theirs.webhooks.push({ name: "first.x.io", timeoutSeconds: 1 });
    const both = merge3(base, mine, theirs);
    expect(both.conflicts).toEqual(["/webhooks (order)"]);
    expect(names(both)).toEqual(["first.x.io", "a.x.io", "b.x.io"]);
  });

  it("combines a removal on one side with an insertion on the other without a conflict", () => {
    const theirs = structuredClone(base);
    theirs.webhooks.shift();
    const mine = structuredClone(base);
    mine.webhooks.splice(1, 0, { name: "mid.x.io", timeoutSeconds: 1 });
    const r = merge3(base, mine, theirs);
    expect(r.conflicts).toEqual([]);
    expect(names(r)).toEqual(["mid.x.io", "b.x.io"]);
  });
});

describe("selector text", () => {
  it("round-trips kubectl's selector syntax", () => {
    const r = parseSelectorText("env=prod, runlevel notin (0,1), team, !legacy");
    expect("selector" in r && selectorText(r.selector)).toBe(
      "env=prod, runlevel notin (0,1), team, !legacy",
    );
  });
  it('keeps an empty value of In and NotIn through the form\'s text (it matches a label set to "")', () => {
    for (const selector of [
      { matchExpressions: [{ key: "env", operator: "NotIn", values: ["", "dev"] }] },
      { matchExpressions: [{ key: "env", operator: "In", values: [""] }] },
    ]) {
      const text = selectorText(selector);
      expect(parseSelectorText(text)).toEqual({ selector });
    }
    expect(
      selectorText({ matchExpressions: [{ key: "a", operator: "In", values: ["x", ""] }] }),
    ).toBe('a in (x,"")');
  });

  it("keeps every term: a key named twice, and kubectl's !=", () => {
    expect(parseSelectorText("a=b, a=c")).toEqual({
      selector: {
        matchLabels: { a: "b" },
        matchExpressions: [{ key: "a", operator: "In", values: ["c"] }],
      },
    });
    expect(parseSelectorText("env!=prod, tier=web")).toEqual({
      selector: {
        matchLabels: { tier: "web" },
        matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }],
      },
    });
  });

  it("refuses what it cannot read", () => {
    expect(parseSelectorText("a in b")).toEqual({ error: 'cannot read "a in b"' });
  });
});

describe("apiErrorMarkers", () => {
  const text = "apiVersion: v1\nwebhooks:\n  - name: a.b.c\n    timeoutSeconds: 99\n";
  it("places each 422 cause on the token its field names", () => {
    const m = apiErrorMarkers(text, {
      status: 422,
      reason: "Invalid",
      message: "invalid",
      cluster: "",
      details: {
        causes: [
          {
            field: "webhooks[0].timeoutSeconds",
            message: "Invalid value: 99: the timeout value must be between 1 and 30 seconds",
          },
        ],
      },
    });
    expect(m).toEqual([expect.objectContaining({ startLineNumber: 4, startColumn: 21 })]);
  });
  it("places strict-decoding unknown fields on their key", () => {
    const t = text.replace("timeoutSeconds: 99", "bogus: 1");
    const m = apiErrorMarkers(t, {
      status: 400,
      reason: "BadRequest",
      message: 'strict decoding error: unknown field "webhooks[0].bogus"',
      cluster: "",
    });
    expect(m).toEqual([expect.objectContaining({ startLineNumber: 4, startColumn: 5 })]);
  });
});

describe("isApiserverVerdict", () => {
  const body = (status: number, reason: string) => ({ status, reason, message: "m", cluster: "" });
  it("tells the apiserver's answers from failures to get one", () => {
    for (const [status, reason] of [
      [422, "Invalid"],
      [400, "BadRequest"],
      [403, "Forbidden"],
      [500, "InternalError"],
      [503, "ServiceUnavailable"],
    ] as const)
      expect(isApiserverVerdict(body(status, reason)), reason).toBe(true);
    for (const [status, reason] of [
      [503, "Unreachable"],
      [503, "DashboardUnreachable"],
      [499, "Aborted"],
      [502, "BadResponse"],
    ] as const)
      expect(isApiserverVerdict(body(status, reason)), reason).toBe(false);
  });
});
