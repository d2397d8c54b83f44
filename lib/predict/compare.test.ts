import { describe, expect, it } from "vitest";
import type { PredictReport } from "@/lib/admission/predict-report";
import { compareVerdict, denierOf } from "@/lib/predict/compare";

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

  it("a denial by a predicted hook agrees; by an unpredicted hook is a mismatch", () => {
    const denied = {
      outcome: "denied" as const,
      status: 403,
      reason: "Forbidden",
      message: 'admission webhook "deny.x.io" denied the request: no',
      warnings: [],
    };
    expect(compareVerdict(report(["deny.x.io"]), denied)[0]?.agrees).toBe(true);
    expect(compareVerdict(report(["other.x.io"]), denied)[0]?.agrees).toBe(false);
  });

  it("a predicted rejection the apiserver does not make is a mismatch", () => {
    const allowed = { outcome: "allowed" as const, status: 200, warnings: [] };
    expect(compareVerdict(report([], "does not support dry run"), allowed)[0]?.agrees).toBe(false);
    expect(compareVerdict(report(["a"]), allowed)[0]?.agrees).toBe(true);
  });
});
