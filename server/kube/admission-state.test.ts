import { describe, expect, it } from "vitest";
import { KubeApiError } from "@/lib/k8s/errors";
import { paramKindKey } from "@/lib/admission/params";
import { readAdmissionState } from "./admission-state";
import type { KubeClient } from "./client";

/** A cluster that answers GETs from `routes` and fails anything else with 503. */
function fakeClient(routes: Record<string, unknown>): KubeClient {
  const request = async ({ path }: { path: string }): Promise<unknown> => {
    if (Object.prototype.hasOwnProperty.call(routes, path)) return routes[path];
    throw new KubeApiError({
      status: 503,
      reason: "ServiceUnavailable",
      message: `${path} is unavailable`,
      cluster: "fake",
    });
  };
  return { request } as unknown as KubeClient;
}

const policy = (name: string, apiVersion: string, kind: string) => ({
  metadata: { name },
  spec: {
    paramKind: { apiVersion, kind },
    matchConstraints: { resourceRules: [] },
    validations: [{ expression: "true" }],
  },
});

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

describe("readAdmissionState: paramKinds the cluster does not serve", () => {
  const client = fakeClient({
    "/apis": {
      groups: [
        { name: "admissionregistration.k8s.io", versions: [{ version: "v1" }] },
        // Listed, but its discovery fails (an aggregated API that is down).
        { name: "down.example.com", versions: [{ version: "v1" }] },
      ],
    },
    "/api/v1": {
      resources: [
        { name: "namespaces", kind: "Namespace", namespaced: false, verbs: [] },
        { name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: [] },
      ],
    },
    [ADMISSION]: {
      resources: [
        {
          name: "validatingadmissionpolicies",
          kind: "ValidatingAdmissionPolicy",
          namespaced: false,
          verbs: [],
        },
        {
          name: "validatingadmissionpolicybindings",
          kind: "ValidatingAdmissionPolicyBinding",
          namespaced: false,
          verbs: [],
        },
      ],
    },
    "/api/v1/namespaces": { items: [{ metadata: { name: "default" } }] },
    "/api/v1/configmaps": { items: [] },
    [`${ADMISSION}/validatingadmissionpolicies`]: {
      items: [
        policy("no-group", "absent.example.com/v1", "Thing"),
        policy("no-kind", "v1", "Nope"),
        policy("served", "v1", "ConfigMap"),
        policy("down", "down.example.com/v1", "Thing"),
      ],
    },
    [`${ADMISSION}/validatingadmissionpolicybindings`]: { items: [] },
  });

  it("lists a kind of a group version not served, or served without it; not one whose discovery failed", async () => {
    const state = await readAdmissionState(client);
    expect(state.snapshot.unservedParamKinds).toEqual([
      paramKindKey("absent.example.com/v1", "Thing"),
      paramKindKey("v1", "Nope"),
    ]);
    expect(state.snapshot.params?.map((p) => p.kind)).toEqual(["ConfigMap"]);
    expect(state.notices).toEqual(
      expect.arrayContaining([
        expect.stringContaining("paramKind absent.example.com/v1 Thing is not served"),
        expect.stringContaining("paramKind v1 Nope is not served"),
        expect.stringContaining("paramKind down.example.com/v1 Thing is unknown"),
      ]),
    );
  });
});
