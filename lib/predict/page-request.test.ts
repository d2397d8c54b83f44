import { describe, expect, it } from "vitest";
import { hook, validatingSnapshot } from "@/lib/admission/model/test-helpers";
import { predictPage, snapshotForMinor } from "@/lib/predict/page-request";
import { liveOf } from "@/lib/predict/test-live";
import { DEFAULT_STATE } from "@/lib/predict/page-state";
import { PREDICT_TEMPLATES } from "@/lib/predict/templates";

const snapshot = validatingSnapshot([
  hook("cm.example.com", {
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { env: "prod" } },
  }),
]);
const live = liveOf(snapshot);

describe("predict page request", () => {
  it("predicts for the minor picked, else the cluster's, and says which", () => {
    const any = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];
    const cluster = {
      ...validatingSnapshot([hook("all.example.com", { rules: any })]),
      kubernetes: { minor: "1.37" as const, source: "cluster" as const },
    };
    const review =
      "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nmetadata:\n  name: t\n";
    const at = (chosen: "1.36" | undefined) =>
      predictPage(
        { ...DEFAULT_STATE, object: review, kubernetesVersion: chosen },
        liveOf(snapshotForMinor(cluster, chosen)),
      );
    const own = at(undefined);
    const older = at("1.36");
    if (!own.ok || !older.ok) throw new Error("not predicted");
    expect(own.report.kubernetes).toEqual({ minor: "1.37", source: "cluster", reported: null });
    // 1.37 excludes the virtual auth resources from webhooks (ExcludeAdmissionWebhookVirtualResources); 1.36 does not.
    expect(own.report.calls).toHaveLength(0);
    expect(older.report.kubernetes).toEqual({ minor: "1.36", source: "flag", reported: null });
    expect(older.report.calls.map((c) => c.hook.name)).toEqual(["all.example.com"]);
  });

  it("a YAML error is reported at its line and column", () => {
    const r = predictPage({ ...DEFAULT_STATE, object: "apiVersion: v1\nkind: [ConfigMap\n" }, live);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({ field: "object", line: expect.any(Number) });
    expect(r.problems[0]?.line).toBeGreaterThanOrEqual(2);
  });

  it("two documents are refused, naming where the second starts", () => {
    const r = predictPage({ ...DEFAULT_STATE, object: "kind: A\n---\nkind: B\n" }, live);
    expect(r.ok ? undefined : r.problems[0]?.message).toBe("2 documents: give exactly one object");
  });

  it("live labels decide the namespaceSelector; what-if labels override them", () => {
    const obj = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team\n";
    const livePrediction = predictPage({ ...DEFAULT_STATE, object: obj }, live);
    expect(livePrediction.ok && livePrediction.report.calls.map((c) => c.hook.name)).toEqual([
      "cm.example.com",
    ]);
    const whatIf = predictPage(
      { ...DEFAULT_STATE, object: obj, namespaceLabels: { env: "dev" } },
      live,
    );
    expect(whatIf.ok && whatIf.report.calls).toEqual([]);
    expect(whatIf.ok && whatIf.report.skips[0]?.code).toBe("namespace-selector");
    expect(whatIf.ok && whatIf.report.request.namespaceLabelsFrom).toBe("flag");
  });

  it("acts as the identity unless a user is given", () => {
    const obj = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
    const own = predictPage({ ...DEFAULT_STATE, object: obj }, live);
    expect(own.ok && own.report.request.userInfo.username).toBe("me");
    const other = predictPage({ ...DEFAULT_STATE, object: obj, user: "bob", groups: ["x"] }, live);
    expect(other.ok && other.report.request.userInfo).toEqual({
      username: "bob",
      groups: ["x", "system:authenticated"],
    });
  });

  it("a CONNECT names its pod in the request: a matchCondition on request.name decides", () => {
    const debugExec = liveOf(
      validatingSnapshot([
        hook("debug-exec.example.com", {
          rules: [
            {
              operations: ["CONNECT"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["pods/exec"],
            },
          ],
          matchConditions: [
            { name: "debug-pods", expression: 'request.name.startsWith("debug-")' },
          ],
        }),
      ]),
    );
    const exec = PREDICT_TEMPLATES.find((t) => t.id === "exec")?.state;
    const state = { ...DEFAULT_STATE, ...exec };
    const web = predictPage(state, debugExec);
    expect(web.ok && web.report.request.name).toBe("web");
    expect(web.ok && web.report.calls).toEqual([]);
    const debug = predictPage({ ...state, name: "debug-1" }, debugExec);
    expect(debug.ok && debug.report.request).toMatchObject({
      operation: "CONNECT",
      subresource: "exec",
      name: "debug-1",
    });
    expect(debug.ok && debug.report.calls.map((c) => c.hook.name)).toEqual([
      "debug-exec.example.com",
    ]);
  });

  it("a kind live discovery does not list: the cluster does not serve it (404 before admission)", () => {
    const r = predictPage(
      {
        ...DEFAULT_STATE,
        object: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: team}\n",
      },
      live,
    );
    expect(r.ok && r.report.notices.map((n) => n.message)).toContainEqual(
      expect.stringContaining("the cluster does not serve example.com/v1/widgets"),
    );
  });
});
