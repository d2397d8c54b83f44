import { describe, expect, it } from "vitest";
import { spanResourceLabel } from "./resource-label";

describe("spanResourceLabel", () => {
  it("reads the apiserver's GroupVersionResource form into group/version/resource", () => {
    expect(spanResourceLabel("/v1, Resource=pods", "")).toBe("core/v1/pods");
    expect(spanResourceLabel("apps/v1, Resource=deployments", "scale")).toBe(
      "apps/v1/deployments/scale",
    );
    expect(
      spanResourceLabel(
        "admissionregistration.k8s.io/v1, Resource=validatingwebhookconfigurations",
        "",
      ),
    ).toBe("admissionregistration.k8s.io/v1/validatingwebhookconfigurations");
  });

  it("shows anything else as it is", () => {
    expect(spanResourceLabel("pods", "")).toBe("pods");
    expect(spanResourceLabel("", "status")).toBe("/status");
    expect(spanResourceLabel("a/b/c, Resource=x", "")).toBe("a/b/c, Resource=x");
  });
});
