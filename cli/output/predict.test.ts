import { describe, expect, it } from "vitest";
import type { PredictReport } from "@/lib/admission/predict-report";
import { formatPredictText } from "./predict";

const ref = (configuration: string, name: string) => ({
  source: "ValidatingAdmissionPolicy" as const,
  configuration,
  name,
  position: 0,
});
const failing = (policy: string) => ({
  stage: "validating-policy",
  hook: ref(policy, `${policy}-b`),
  key: `${policy}/${policy}-b`,
  status: 422,
  message: `ValidatingAdmissionPolicy '${policy}' with binding '${policy}-b' denied request: x`,
});

describe("predict text output", () => {
  it("names every failing binding of a policy stage, and a failed condition's decision", () => {
    const report = {
      request: {
        operation: "CREATE",
        group: "",
        version: "v1",
        resource: "configmaps",
        subresource: "",
        namespace: "team",
        name: "c",
        userInfo: { username: "admin" },
        dryRun: false,
      },
      calls: [
        {
          order: 0,
          round: 0,
          stage: "validating-policy",
          hook: ref("w", "w-b"),
          timeoutSeconds: 0,
          failurePolicy: "Fail",
          parallel: false,
          reinvocationPolicy: null,
          converted: false,
          conditionError: "expression 'x' resulted in error: no such key: x",
        },
      ],
      indeterminate: [],
      failure: failing("a"),
      alsoFailing: [failing("b")],
      skips: [],
      exclusions: { webhooks: null, policies: null },
      worstCaseLatencySeconds: 0,
      legacy: [],
      notices: [],
    } as unknown as PredictReport;
    const text = formatPredictText(report);
    expect(text).toContain(
      "matchConditions fail; the decision: expression 'x' resulted in error: no such key: x",
    );
    expect(text).toContain(
      "REJECTED at [validating-policy] ValidatingAdmissionPolicy a / a-b: 422",
    );
    expect(text).toContain("also failing (the apiserver names one of all of these):");
    expect(text).toContain("[validating-policy] ValidatingAdmissionPolicy b / b-b: 422");
  });
});
