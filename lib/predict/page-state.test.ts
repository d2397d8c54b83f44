import { describe, expect, it } from "vitest";
import {
  DEFAULT_STATE,
  MAX_URL_OBJECT,
  parseLabels,
  stateFromQuery,
  stateToQuery,
  type PredictPageState,
} from "@/lib/predict/page-state";

describe("predict page state in the URL", () => {
  it("the default state is an empty query, and an empty query is the default state", () => {
    expect(stateToQuery(DEFAULT_STATE)).toBe("");
    expect(stateFromQuery("")).toEqual(DEFAULT_STATE);
  });

  it("round-trips every field", () => {
    const s: PredictPageState = {
      object: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a&b=c #x\n",
      oldObject: "apiVersion: apps/v1\nkind: Deployment\n",
      operation: "UPDATE",
      subresource: "scale",
      resource: "apps/v1/deployments",
      namespace: "team-a",
      name: "web",
      namespaceLabels: { "kubernetes.io/metadata.name": "team-a", runlevel: "0", empty: "" },
      user: "alice",
      groups: ["devs", "system:authenticated"],
      dryRun: true,
      kubernetesVersion: "1.35",
    };
    const q = stateToQuery(s);
    expect(stateFromQuery(q)).toEqual(s);
    expect(stateFromQuery(new URLSearchParams(q))).toEqual(s);
  });

  it("the Kubernetes minor: one modelled, else the cluster's", () => {
    expect(stateFromQuery("k8s=1.36").kubernetesVersion).toBe("1.36");
    expect(stateFromQuery("k8s=v1.36.3").kubernetesVersion).toBe("1.36");
    expect(stateFromQuery("k8s=1.20").kubernetesVersion).toBeUndefined();
    expect(stateFromQuery("").kubernetesVersion).toBeUndefined();
  });

  it("what-if labels distinguish 'none' from 'live'", () => {
    const s = { ...DEFAULT_STATE, namespaceLabels: {} };
    expect(stateFromQuery(stateToQuery(s)).namespaceLabels).toEqual({});
    expect(stateFromQuery(stateToQuery(DEFAULT_STATE)).namespaceLabels).toBeUndefined();
  });

  it("hostile links fall back to defaults instead of failing", () => {
    const s = stateFromQuery(
      `op=DROP&nsLabels=${encodeURIComponent("novalue")}&user=${"u".repeat(5000)}&${Array.from(
        { length: 100 },
        (_, i) => `group=g${i}`,
      ).join("&")}`,
    );
    expect(s.operation).toBe("CREATE");
    expect(s.namespaceLabels).toBeUndefined();
    expect(s.user.length).toBe(253);
    expect(s.groups).toHaveLength(32);
  });

  it("an object too large for a link is left out of it (the page keeps it)", () => {
    const big = { ...DEFAULT_STATE, object: "x".repeat(MAX_URL_OBJECT + 1) };
    expect(stateToQuery(big)).toBe("");
  });

  it("parses k=v lists and says which pair is wrong", () => {
    expect(parseLabels("a=1, b = 2,,c=")).toEqual({ labels: { a: "1", b: "2", c: "" } });
    expect(parseLabels("a=1,oops").error).toBe('"oops" is not key=value');
  });
});
