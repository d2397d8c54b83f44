import { describe, expect, it } from "vitest";
import {
  gatekeeperGeneratedPolicy,
  gatekeeperValidatingConfiguration,
  kyvernoResourceValidatingConfiguration,
} from "@/lib/admission/engines/engine-objects";
import { buildEnginesReport } from "./report";
import { engineEditWarning } from "./edit-warning";

describe("engineEditWarning", () => {
  it("names the ConstraintTemplate behind a generated policy, with its owner reference as proof", () => {
    const w = engineEditWarning(
      "ValidatingAdmissionPolicy",
      gatekeeperGeneratedPolicy({
        name: "k8srequiredlabels",
        kind: "K8sRequiredLabels",
        uid: "u1",
      }),
    );
    expect(w?.engine).toBe("gatekeeper");
    expect(w?.ownership.certainty).toBe("proof");
    expect(w?.changeInstead).toBe("ConstraintTemplate k8srequiredlabels");
    expect(w?.sourceHref).toBe("/engines#engine-gatekeeper-ConstraintTemplate--k8srequiredlabels");
    expect(w?.emergency.join(" ")).toContain("admission.gatekeeper.sh/ignore");
  });

  it("warns on an engine's webhook configuration that the engine writes it back", () => {
    const gk = engineEditWarning(
      "ValidatingWebhookConfiguration",
      gatekeeperValidatingConfiguration(),
    );
    expect(gk?.reverts).toContain("writes its own version back");
    const ky = engineEditWarning(
      "ValidatingWebhookConfiguration",
      kyvernoResourceValidatingConfiguration(),
    );
    expect(ky?.engine).toBe("kyverno");
    expect(ky?.emergency.join(" ")).toContain("kyverno-resource-validating-webhook-cfg");
  });

  it("says nothing for an object no engine owns, or a kind no engine writes", () => {
    const plain = { metadata: { name: "tenant-guard" }, webhooks: [{ name: "guard.example.com" }] };
    expect(engineEditWarning("ValidatingWebhookConfiguration", plain)).toBeUndefined();
    expect(engineEditWarning("ConfigMap", gatekeeperValidatingConfiguration())).toBeUndefined();
  });
});

describe("buildEnginesReport", () => {
  it("shows nothing on a cluster without engines", () => {
    const plain = {
      metadata: { name: "tenant-guard" },
      webhooks: [
        {
          name: "guard.example.com",
          clientConfig: { url: "https://guard.example.com" },
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    };
    expect(
      buildEnginesReport(
        { validatingWebhookConfigurations: [plain] },
        [],
        { policies: [], unrecognised: [] },
        undefined,
      ),
    ).toEqual([]);
  });
});
