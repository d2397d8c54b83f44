import { describe, expect, it } from "vitest";
import {
  assumedMinorText,
  behaviourOf,
  minorOfVersion,
  parseKubernetesMinor,
} from "./kubernetes-minor";

describe("parseKubernetesMinor", () => {
  it.each([
    ["1.35", "1.35"],
    ["v1.36", "1.36"],
    ["1.36.3", "1.36"],
    ["v1.37.2", "1.37"],
    [" 1.37 ", "1.37"],
    ["1.34", undefined],
    ["1.38", undefined],
    ["2.0", undefined],
    ["latest", undefined],
  ])("%s → %s", (s, want) => expect(parseKubernetesMinor(s)).toBe(want));
});

describe("minorOfVersion (an apiserver's /version)", () => {
  it("takes major and minor, a minor with + included (managed clusters)", () => {
    expect(minorOfVersion({ major: "1", minor: "36", gitVersion: "v1.36.3" })).toEqual({
      minor: "1.36",
      source: "cluster",
    });
    expect(minorOfVersion({ major: "1", minor: "35+", gitVersion: "v1.35.4-eks-1" })).toEqual({
      minor: "1.35",
      source: "cluster",
    });
  });
  it("falls back on gitVersion when major/minor are empty", () => {
    expect(minorOfVersion({ major: "", minor: "", gitVersion: "v1.37.2" })?.minor).toBe("1.37");
  });
  it("a minor not modelled: the nearest, with what the cluster reported", () => {
    expect(minorOfVersion({ major: "1", minor: "33", gitVersion: "v1.33.1" })).toEqual({
      minor: "1.35",
      source: "cluster",
      reported: "v1.33.1",
    });
    expect(minorOfVersion({ major: "1", minor: "39", gitVersion: "v1.39.0" })).toEqual({
      minor: "1.37",
      source: "cluster",
      reported: "v1.39.0",
    });
  });
  it("a build without a version (v0.0.0-master) names none", () => {
    expect(minorOfVersion({ major: "", minor: "", gitVersion: "v0.0.0-master" })).toBeUndefined();
  });
});

describe("behaviourOf: each difference as the minor's sources have it", () => {
  it("ExcludeAdmissionWebhookVirtualResources: 1.37 only", () => {
    expect(
      ["1.35", "1.36", "1.37"].map((m) => behaviourOf(m as "1.35").webhooksSkipVirtualResources),
    ).toEqual([false, false, true]);
  });
  it("MutatingAdmissionPolicy: v1 and on by default from 1.36", () => {
    expect(behaviourOf("1.35").mutatingAdmissionPolicyVersions).not.toContain("v1");
    expect(behaviourOf("1.35").mutatingAdmissionPoliciesByDefault).toBe(false);
    expect(behaviourOf("1.36").mutatingAdmissionPolicyVersions).toContain("v1");
    expect(behaviourOf("1.36").mutatingAdmissionPoliciesByDefault).toBe(true);
  });
  it("static manifests by default: 1.37 only", () => {
    expect(behaviourOf("1.36").staticManifests).toBe(false);
    expect(behaviourOf("1.37").staticManifests).toBe(true);
  });
  it("owner reference errors: indexed and required from apimachinery v0.37, at the list before", () => {
    expect(
      ["1.35", "1.36", "1.37"].map((m) => behaviourOf(m as "1.35").ownerReferenceErrors),
    ).toEqual(["unindexed", "unindexed", "indexed"]);
  });
  it("declarative validation enforced: 1.37 only (1.36 runs it for migration checks)", () => {
    expect(
      ["1.35", "1.36", "1.37"].map((m) => behaviourOf(m as "1.35").declarativeValidation),
    ).toEqual([false, false, true]);
  });
  it("the .static.k8s.io suffix on create: unknown in 1.35, warned in 1.36, refused in 1.37", () => {
    expect(
      ["1.35", "1.36", "1.37"].map((m) => behaviourOf(m as "1.35").staticSuffixOnCreate),
    ).toEqual(["none", "warned", "refused"]);
  });
  it("cel-go: v0.26.0 in 1.35 and 1.36 (their go.sum), v0.29.2 in 1.37", () => {
    expect(["1.35", "1.36", "1.37"].map((m) => behaviourOf(m as "1.35").celGo)).toEqual([
      "v0.26.0",
      "v0.26.0",
      "v0.29.2",
    ]);
  });
  it("the default is the newest", () => expect(behaviourOf().minor).toBe("1.37"));
});

describe("assumedMinorText", () => {
  it("says where the minor came from", () => {
    expect(assumedMinorText({ minor: "1.36", source: "cluster" })).toBe(
      "Kubernetes 1.36 (the cluster's version)",
    );
    expect(assumedMinorText({ minor: "1.35", source: "flag" })).toBe("Kubernetes 1.35 (chosen)");
    expect(assumedMinorText({ minor: "1.37", source: "default" })).toBe(
      "Kubernetes 1.37 (the newest; the cluster's version is not known)",
    );
    expect(assumedMinorText({ minor: "1.37", source: "cluster", reported: "v1.39.0" })).toBe(
      "Kubernetes 1.37 (the modelled minor nearest the cluster's v1.39.0)",
    );
  });
});
