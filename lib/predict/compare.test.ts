import { describe, expect, it } from "vitest";
import type { PredictReport } from "@/lib/admission/report/predict-report";
import { compareAudited, compareVerdict, denierOf } from "@/lib/predict/compare";
import type { DecisionRecord } from "@/lib/admission/audit/audit";

const hookRef = (name: string) => ({
  source: "ValidatingWebhookConfiguration" as const,
  configuration: "cfg",
  name,
  position: 0,
});
const report = (calls: string[], failure?: string): PredictReport =>
  ({
    calls: calls.map((name) => ({ stage: "validating-webhook", hook: hookRef(name), round: 0 })),
    failure: failure
      ? { stage: "validating-webhook", hook: hookRef("f"), key: "f", status: 400, message: failure }
      : null,
    alsoFailing: [],
  }) as unknown as PredictReport;

describe("prediction beside the apiserver's verdict", () => {
  it("reads the denier from the apiserver's wording", () => {
    expect(denierOf('admission webhook "deny.x.io" denied the request: no')).toEqual({
      webhook: "deny.x.io",
    });
    expect(
      denierOf(
        "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: x",
      ),
    ).toEqual({ policy: "p", binding: "b" });
  });

  it("names the denier by the apiserver's words only, not by words a message quotes", () => {
    expect(
      denierOf(
        `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: admission webhook "evil.x.io" denied the request: no`,
      ),
    ).toEqual({ policy: "p", binding: "b" });
    expect(
      denierOf(
        `admission webhook "deny.x.io" denied the request: policy 'fake' with binding 'fb' denied request: no`,
      ),
    ).toEqual({ webhook: "deny.x.io" });
  });

  it("a denial by a predicted hook agrees; by an unpredicted hook is a mismatch", () => {
    const denied = {
      outcome: "denied" as const,
      status: 403,
      reason: "Forbidden",
      message: 'admission webhook "deny.x.io" denied the request: no',
      warnings: [],
      auditID: "a",
    };
    expect(compareVerdict(report(["deny.x.io"]), denied)[0]?.agrees).toBe(true);
    expect(compareVerdict(report(["other.x.io"]), denied)[0]?.agrees).toBe(false);
  });

  it("an error naming a webhook is that webhook's: it agrees only when the prediction calls it", () => {
    const failed = {
      outcome: "error" as const,
      status: 500,
      reason: "InternalError",
      message:
        'Internal error occurred: failed calling webhook "down.x.io": failed to call webhook: Post "https://down.invalid/": dial tcp: lookup down.invalid: no such host',
      warnings: [],
      auditID: "a",
    };
    expect(compareVerdict(report(["down.x.io"]), failed)[0]).toMatchObject({
      agrees: true,
      message: expect.stringContaining("failed at down.x.io, which the prediction calls"),
    });
    expect(compareVerdict(report(["other.x.io"]), failed)[0]).toMatchObject({
      agrees: false,
      message: "failed at down.x.io, which the prediction does not call",
    });
    // An error that names no hook is outside admission matching.
    const quota = { ...failed, message: "etcdserver: request timed out" };
    expect(compareVerdict(report([]), quota)[0]?.agrees).toBe(true);
  });

  it("a policy stage's rejection may name any of its failing bindings: each agrees", () => {
    const policyRef = (policy: string, binding: string) => ({
      source: "ValidatingAdmissionPolicy" as const,
      configuration: policy,
      name: binding,
      position: 0,
    });
    const failing = (policy: string) => ({
      stage: "validating-policy",
      hook: policyRef(policy, `${policy}-b`),
      key: `${policy}/${policy}-b`,
      status: 422,
      message: `configmaps "c" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}-b' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    });
    const dry = {
      calls: [],
      failure: failing("a"),
      alsoFailing: [failing("b")],
    } as unknown as PredictReport;
    const verdict = (policy: string) => ({
      outcome: "denied" as const,
      status: 422,
      reason: "Invalid",
      message: failing(policy).message,
      warnings: [],
      auditID: "x",
    });
    expect(compareVerdict(dry, verdict("b"))[0]).toEqual({
      agrees: true,
      message: "rejected as predicted, at b-b",
    });
    expect(compareVerdict(dry, verdict("a"))[0]?.message).toBe("rejected as predicted, at a-b");
    // A binding the prediction does not fail is a mismatch, though its error reads the same.
    expect(compareVerdict({ ...dry, alsoFailing: [] }, verdict("b"))[0]?.agrees).toBe(false);
  });

  it("a predicted rejection the apiserver does not make is a mismatch", () => {
    const allowed = { outcome: "allowed" as const, status: 200, warnings: [], auditID: "a" };
    expect(compareVerdict(report([], "does not support dry run"), allowed)[0]?.agrees).toBe(false);
    expect(compareVerdict(report(["a"]), allowed)[0]?.agrees).toBe(true);
  });
});

describe("prediction beside the apiserver's audit event", () => {
  const mutating = (name: string, round: 0 | 1) => ({
    stage: "mutating-webhook",
    hook: { ...hookRef(name), source: "MutatingWebhookConfiguration" },
    round,
  });
  const dry = {
    calls: [mutating("a", 0), mutating("b", 0), mutating("a", 1)],
    failure: null,
  } as unknown as PredictReport;
  // Stored rows arrive newest first; the comparison orders them by round and index itself.
  const decision = (calls: Array<[string, number]>): DecisionRecord[] =>
    calls
      .map(
        ([hook, round], index) =>
          ({
            stage: "ResponseComplete",
            kind: "mutating-webhook",
            hook,
            round,
            index,
          }) as unknown as DecisionRecord,
      )
      .reverse();

  it("agrees when round 0 is the predicted order and round 1 among the possible", () => {
    const c = compareAudited(
      dry,
      decision([
        ["a", 0],
        ["b", 0],
        ["a", 1],
      ]),
    );
    expect(c.map((x) => x.agrees)).toEqual([true, true]);
  });

  it("flags another order, and a reinvocation that was not possible", () => {
    expect(
      compareAudited(
        dry,
        decision([
          ["b", 0],
          ["a", 0],
        ]),
      )[0]?.agrees,
    ).toBe(false);
    expect(
      compareAudited(
        dry,
        decision([
          ["a", 0],
          ["b", 0],
          ["b", 1],
        ]),
      )[1]?.agrees,
    ).toBe(false);
  });

  it("a rejection before any hook (NamespaceLifecycle) agrees with the apiserver's 404 only", () => {
    const dry = {
      ...report(["v"]),
      calls: [],
      rejectedBeforeHooks: {
        plugin: "NamespaceLifecycle",
        status: 404,
        message: 'namespaces "ghost" not found',
      },
    } as PredictReport;
    const refused = {
      outcome: "error" as const,
      status: 404,
      reason: "NotFound",
      message: 'namespaces "ghost" not found',
      warnings: [],
      auditID: "x",
    };
    expect(compareVerdict(dry, refused)).toEqual([
      { agrees: true, message: "rejected as predicted, by NamespaceLifecycle before any hook" },
    ]);
    expect(
      compareVerdict(dry, { outcome: "allowed", status: 200, warnings: [], auditID: "x" })[0]
        ?.agrees,
    ).toBe(false);
  });

  it("a 403 before any hook (a Terminating namespace) agrees only with the same status and message", () => {
    const message =
      'configmaps "c" is forbidden: unable to create new content in namespace doomed because it is being terminated';
    const dry = {
      ...report(["v"]),
      calls: [],
      rejectedBeforeHooks: { plugin: "NamespaceLifecycle", status: 403, message },
    } as PredictReport;
    const refused = (status: number) => ({
      outcome: "error" as const,
      status,
      reason: "Forbidden",
      message,
      warnings: [],
      auditID: "x",
    });
    expect(compareVerdict(dry, refused(403))).toEqual([
      { agrees: true, message: "rejected as predicted, by NamespaceLifecycle before any hook" },
    ]);
    expect(compareVerdict(dry, refused(500))[0]).toMatchObject({ agrees: false });
  });
});
