import { describe, expect, it } from "vitest";
import { decisionFromEvent, decisionsFromEventList } from "./audit";

describe("decisionsFromEventList", () => {
  it("refuses anything that is not an EventList", () => {
    expect(() => decisionsFromEventList(null)).toThrow(/EventList/);
    expect(() => decisionsFromEventList({ kind: "EventList" })).toThrow(/items/);
    expect(() => decisionsFromEventList({ kind: "List", items: [] })).toThrow(/EventList/);
  });

  it("skips items without an auditID and keeps the rest", () => {
    const out = decisionsFromEventList({
      kind: "EventList",
      items: [1, "x", {}, { auditID: "a", verb: "create" }],
    });
    expect(out.map((d) => d.auditID)).toEqual(["a"]);
  });
});

describe("decisionFromEvent", () => {
  // mutating/dispatcher.go: mutation + patch annotations share round/index; failed-open carries the bare name.
  it("merges the mutation and patch annotations of one call and reads failed-open ones", () => {
    const d = decisionFromEvent({
      auditID: "id",
      requestURI: "/api/v1/namespaces/a/pods?dryRun=All&fieldManager=x",
      annotations: {
        "mutation.webhook.admission.k8s.io/round_1_index_0":
          '{"configuration":"c","webhook":"w","mutated":false}',
        "mutation.webhook.admission.k8s.io/round_0_index_0":
          '{"configuration":"c","webhook":"w","mutated":true}',
        "patch.webhook.admission.k8s.io/round_0_index_0":
          '{"configuration":"c","webhook":"w","patch":[],"patchType":"JSONPatch"}',
        "failed-open.mutation.webhook.admission.k8s.io/round_0_index_3": "slow.example.com",
        "failed-open.validating.webhook.admission.k8s.io/round_0_index_1": "v.example.com",
        "mutation.webhook.admission.k8s.io/round_0_index_9": "{not json",
        "other/key": 7,
      },
    });
    expect(d?.dryRun).toBe(true);
    expect(d?.annotations).not.toHaveProperty("other/key");
    expect(d?.outcomes).toEqual([
      {
        phase: "mutating",
        round: 0,
        index: 0,
        configuration: "c",
        webhook: "w",
        mutated: true,
        patchType: "JSONPatch",
      },
      { phase: "mutating", round: 0, index: 3, webhook: "slow.example.com", failedOpen: true },
      { phase: "mutating", round: 0, index: 9 },
      { phase: "mutating", round: 1, index: 0, configuration: "c", webhook: "w", mutated: false },
      { phase: "validating", round: 0, index: 1, webhook: "v.example.com", failedOpen: true },
    ]);
  });

  it("ignores fields of the wrong type instead of trusting them", () => {
    const d = decisionFromEvent({
      auditID: "id",
      user: { username: 5, groups: ["a", 1] },
      responseStatus: { code: "500" },
    });
    expect(d).toMatchObject({ user: "", groups: ["a"], code: undefined, dryRun: false });
  });
});
