import { describe, expect, it } from "vitest";
import type { PredictReport } from "@/lib/admission/report/predict-report";
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

/** A CREATE of `resource` named `name` in namespace team, by admin. */
const createIn = (resource: string, name: string) => ({
  operation: "CREATE",
  group: "",
  version: "v1",
  resource,
  subresource: "",
  namespace: "team",
  name,
  userInfo: { username: "admin" },
  dryRun: false,
});

describe("predict text output", () => {
  it("names every failing binding of a policy stage, and a failed condition's decision", () => {
    const report = {
      kubernetes: { minor: "1.36", source: "flag", reported: null },
      request: createIn("configmaps", "c"),
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
    // The minor the prediction is for, right under the request.
    expect(text.split("\n")[1]).toBe("as Kubernetes 1.36 (chosen) admits it");
    expect(text).toContain(
      "matchConditions fail; the decision: expression 'x' resulted in error: no such key: x",
    );
    expect(text).toContain(
      "REJECTED at [validating-policy] ValidatingAdmissionPolicy a / a-b: 422",
    );
    expect(text).toContain("also failing (the apiserver names one of all of these):");
    expect(text).toContain("[validating-policy] ValidatingAdmissionPolicy b / b-b: 422");
  });

  it("says what PodSecurity does: a certain refusal, warnings, and why a verdict may not hold", () => {
    const base = {
      kubernetes: { minor: "1.37", source: "default", reported: null },
      request: createIn("pods", "web"),
      calls: [],
      indeterminate: [],
      failure: null,
      alsoFailing: [],
      skips: [],
      exclusions: { webhooks: null, policies: null },
      worstCaseLatencySeconds: 0,
      legacy: [],
      notices: [],
    };
    const ps = {
      subject: "pod",
      enforce: "baseline:latest",
      audit: "privileged:latest",
      warn: "restricted:latest",
      labelErrors: [],
      rejection: {
        status: 403,
        message: 'pods "web" is forbidden: violates PodSecurity "baseline:latest": privileged',
      },
      rejects: true,
      warnings: [],
      auditAnnotations: {},
      undecided: null,
    };
    const text = (podSecurity: unknown) =>
      formatPredictText({ ...base, podSecurity } as unknown as PredictReport);
    const refused = text(ps);
    expect(refused).toContain(
      "PodSecurity (enforce baseline:latest, audit privileged:latest, warn restricted:latest; from the namespace's labels):",
    );
    expect(refused).toContain('  REJECTED: 403 pods "web" is forbidden: violates PodSecurity');
    const maybe = text({
      ...ps,
      rejects: false,
      undecided: "one mutating hook may be called before it",
    });
    expect(maybe).toContain("  would reject: 403 pods");
    expect(maybe).toContain("  undecided: one mutating hook may be called before it");
    const warned = text({
      ...ps,
      rejection: null,
      rejects: false,
      warnings: ["would violate PodSecurity x"],
    });
    expect(warned).toContain("  warning: would violate PodSecurity x");
    expect(text(null)).not.toContain("PodSecurity");
  });
});
