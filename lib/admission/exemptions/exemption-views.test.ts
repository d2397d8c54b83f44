import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import {
  EXEMPT,
  INTERCEPTED,
  NOT_MATCHED,
  POD_CREATE,
  compareGroupValues,
  exemptionMatrix,
  type MatrixHook,
  type MatrixRequest,
} from "@/lib/admission/exemptions/exemptions";
import {
  cellReader,
  columnGroups,
  explainCell,
  failClosedInterceptors,
  hookView,
  matrixRows,
  namespaceView,
} from "@/lib/admission/exemptions/exemption-views";
import { hook } from "@/lib/admission/model/test-helpers";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const NS = (name: string, extra: Record<string, string> = {}) => ({
  "kubernetes.io/metadata.name": name,
  ...extra,
});
const namespaces = {
  "kube-system": NS("kube-system", { runlevel: "0" }),
  addons: NS("addons", { runlevel: "1", env: "prod" }),
  hooks: NS("hooks", { runlevel: "2" }),
  late: NS("late", { runlevel: "10" }),
  team: NS("team", { env: "prod" }),
  dev: NS("dev", { env: "dev" }),
};
const runlevel = { matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }] };
const snapshot: AdmissionSnapshot = {
  mutatingWebhookConfigurations: [
    {
      metadata: { name: "inject" },
      webhooks: [hook("inject.x.io", { namespaceSelector: runlevel, reinvocationPolicy: "Never" })],
    },
  ],
  validatingWebhookConfigurations: [
    {
      metadata: { name: "guard" },
      webhooks: [
        hook("prod.x.io", { namespaceSelector: { matchLabels: { env: "prod" } } }),
        hook("not-team.x.io", {
          failurePolicy: "Ignore",
          namespaceSelector: {
            matchExpressions: [
              { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["team"] },
            ],
          },
        }),
        hook("nodes.x.io", {
          rules: [
            { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] },
          ],
        }),
        hook("ns.x.io", {
          namespaceSelector: runlevel,
          rules: [
            {
              operations: ["CREATE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["namespaces"],
            },
          ],
        }),
      ],
    },
  ],
  namespaces,
};
const compiled = compileSnapshot(snapshot);
const NODES: MatrixRequest = {
  group: "",
  version: "v1",
  resource: "nodes",
  operation: "UPDATE",
  scope: "Cluster",
};
const NAMESPACES: MatrixRequest = {
  group: "",
  version: "v1",
  resource: "namespaces",
  operation: "CREATE",
  scope: "Namespace",
};

function grid(m: ReturnType<typeof exemptionMatrix>) {
  const read = cellReader(m);
  const out: Record<string, string> = {};
  for (const row of matrixRows(m)) {
    if (row.kind !== "namespace") continue;
    out[row.name] = m.hooks.map((_, h) => "EX-"[read(row.name, row.g, h)] ?? "?").join("");
  }
  return out;
}

describe("grouping", () => {
  it("orders runlevel values numerically, unlabelled last, names sorted inside a group", () => {
    const m = exemptionMatrix(compiled);
    const rows = matrixRows(m).map((r) => (r.kind === "group" ? `#${r.value ?? "-"}` : r.name));
    expect(rows).toEqual([
      "#0",
      "kube-system",
      "#1",
      "addons",
      "#2",
      "hooks",
      "#10",
      "late",
      "#-",
      "dev",
      "team",
    ]);
    expect(compareGroupValues("9", "abc")).toBeLessThan(0);
  });
  it("groups by another label and filters rows", () => {
    const m = exemptionMatrix(compiled, "env");
    const rows = matrixRows(m, (n) => n !== "dev").map((r) =>
      r.kind === "group" ? `#${r.value ?? "-"}` : r.name,
    );
    expect(rows).toEqual(["#prod", "addons", "team", "#-", "hooks", "kube-system", "late"]);
  });
});

describe("cells for a request", () => {
  it("pods CREATE: selectors decide, hooks whose rules miss are not matched", () => {
    const m = exemptionMatrix(compiled);
    expect(m.hooks.map((h) => h.hook.name)).toEqual([
      "inject.x.io",
      "prod.x.io",
      "not-team.x.io",
      "nodes.x.io",
      "ns.x.io",
    ]);
    // X intercepted, E exempt, - rules do not match
    expect(grid(m)).toEqual({
      "kube-system": "EEX--",
      addons: "EXX--",
      hooks: "XEX--",
      late: "XEX--",
      dev: "XEX--",
      team: "XXE--",
    });
  });
  it("cluster-scoped resources ignore the namespaceSelector", () => {
    const m = exemptionMatrix(compiled, "runlevel", NODES);
    expect(new Set(Object.values(grid(m)))).toEqual(new Set(["---X-"]));
    const h = m.hooks.findIndex((x) => x.hook.name === "nodes.x.io");
    expect(explainCell(m, m.hooks[h]!, INTERCEPTED, "team", namespaces.team).detail).toContain(
      "cluster-scoped",
    );
  });
  it("Namespace objects are judged by their own labels", () => {
    const m = exemptionMatrix(compiled, "runlevel", NAMESPACES);
    const g = grid(m);
    expect(g["kube-system"]).toBe("----E");
    expect(g["team"]).toBe("----X");
  });
  it("explains the deciding requirement of a cell", () => {
    const m = exemptionMatrix(compiled);
    const inject = m.hooks[0]!;
    const exempt = explainCell(m, inject, EXEMPT, "kube-system", namespaces["kube-system"]);
    expect(exempt).toEqual({
      state: "exempt",
      requirement: "runlevel notin (0,1)",
      detail: 'label runlevel is "0", which is in (0,1) (on namespace kube-system)',
    });
    const hit = explainCell(m, inject, INTERCEPTED, "team", namespaces.team);
    expect(hit.requirement).toBe("runlevel notin (0,1)");
    expect(hit.detail).toContain("label runlevel is absent");
    expect(explainCell(m, m.hooks[3]!, NOT_MATCHED, "team", namespaces.team).state).toBe(
      "not-matched",
    );
  });
});

describe("per-namespace and per-hook views", () => {
  it("lists the hooks intercepting a namespace in call order and those exempting it", () => {
    const m = exemptionMatrix(compiled);
    const v = namespaceView(m, "team", namespaces.team);
    expect(v.intercepting.map((e) => e.hook.hook.name)).toEqual(["inject.x.io", "prod.x.io"]);
    expect(v.exempting.map((e) => [e.hook.hook.name, e.why.requirement])).toEqual([
      ["not-team.x.io", "kubernetes.io/metadata.name notin (team)"],
    ]);
    expect(v.notMatched).toBe(2);
    expect(failClosedInterceptors(m, "team").map((h) => h.hook.name)).toEqual([
      "inject.x.io",
      "prod.x.io",
    ]);
  });
  it("lists the namespaces a hook covers and exempts, by runlevel", () => {
    const m = exemptionMatrix(compiled);
    expect(hookView(m, 0)).toEqual([
      { value: "0", covered: [], exempt: ["kube-system"] },
      { value: "1", covered: [], exempt: ["addons"] },
      { value: "2", covered: ["hooks"], exempt: [] },
      { value: "10", covered: ["late"], exempt: [] },
      { value: undefined, covered: ["dev", "team"], exempt: [] },
    ]);
  });
  it("groups columns by configuration", () => {
    const m = exemptionMatrix(compiled);
    expect(columnGroups(m.hooks, [0, 1, 2, 4])).toEqual([
      { source: "MutatingWebhookConfiguration", configuration: "inject", start: 0, count: 1 },
      { source: "ValidatingWebhookConfiguration", configuration: "guard", start: 1, count: 3 },
    ]);
  });
});

describe("requests that reach few objects", () => {
  const podsRule = (operations: string[], resources: string[]) => ({
    operations,
    apiGroups: [""],
    apiVersions: ["v1"],
    resources,
  });
  const connectSnapshot: AdmissionSnapshot = {
    validatingWebhookConfigurations: [
      {
        metadata: { name: "connect" },
        webhooks: [
          hook("exec.x.io", {
            namespaceSelector: runlevel,
            rules: [podsRule(["CONNECT"], ["pods/exec"])],
          }),
          hook("pods-any-op.x.io", { rules: [podsRule(["*"], ["pods"])] }),
          hook("all-pod-subresources.x.io", { rules: [podsRule(["*"], ["pods/*"])] }),
        ],
      },
    ],
    namespaces,
  };
  const EXEC: MatrixRequest = {
    ...NAMESPACES,
    resource: "pods",
    subresource: "exec",
    operation: "CONNECT",
    scope: "Namespaced",
  };

  it("CONNECT reaches a pod's exec subresource, not the pod: hooks on pods/exec match, on pods do not", () => {
    const c = compileSnapshot(connectSnapshot);
    const m = exemptionMatrix(c, "runlevel", EXEC);
    expect(m.hooks.map((h) => [h.hook.name, h.applies])).toEqual([
      ["exec.x.io", true],
      ["pods-any-op.x.io", false],
      ["all-pod-subresources.x.io", true],
    ]);
    expect(grid(m)).toMatchObject({ "kube-system": "E-X", addons: "E-X", team: "X-X" });
    // Creating a pod does not reach the exec hook ("pods/*" covers the pod itself too).
    const create = exemptionMatrix(c);
    expect(create.hooks.map((h) => h.applies)).toEqual([false, true, true]);
  });

  it("a hook with an objectSelector is never called for a CONNECT (its options have no labels)", () => {
    const execRule = [podsRule(["CONNECT"], ["pods/exec"])];
    // Even a selector an unlabelled object would satisfy: the options object has no metadata.
    const absent = { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] };
    const c = compileSnapshot({
      validatingWebhookConfigurations: [
        {
          metadata: { name: "connect" },
          webhooks: [
            hook("exec-labelled.x.io", { objectSelector: absent, rules: execRule }),
            hook("exec.x.io", { rules: execRule }),
          ],
        },
      ],
      validatingAdmissionPolicies: [
        {
          metadata: { name: "p" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: { resourceRules: execRule, objectSelector: absent },
            validations: [{ expression: "false" }],
          },
        },
      ],
      validatingAdmissionPolicyBindings: [
        { metadata: { name: "b" }, spec: { policyName: "p", validationActions: ["Deny"] } },
      ],
      namespaces,
    });
    const m = exemptionMatrix(c, "runlevel", EXEC);
    expect(m.hooks.map((h) => [h.hook.name, h.applies, h.never !== undefined])).toEqual([
      ["b", false, true],
      ["exec-labelled.x.io", false, true],
      ["exec.x.io", true, false],
    ]);
    expect(grid(m)).toMatchObject({ team: "--X", "kube-system": "--X" });
    const labelled = m.hooks[1] as MatrixHook;
    expect(explainCell(m, labelled, NOT_MATCHED, "team", {})).toMatchObject({
      requirement: "objectSelector",
      detail: expect.stringContaining("never called for pods/exec CONNECT: its objectSelector"),
    });
  });

  it("a mutating policy whose rules match every operation is never consulted for a DELETE", () => {
    const c = compileSnapshot({
      mutatingAdmissionPolicies: [
        {
          metadata: { name: "m" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: { resourceRules: [podsRule(["*"], ["pods"])] },
            mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }],
          },
        },
      ],
      mutatingAdmissionPolicyBindings: [{ metadata: { name: "mb" }, spec: { policyName: "m" } }],
      namespaces,
    });
    const del = exemptionMatrix(c, "runlevel", { ...POD_CREATE, operation: "DELETE" });
    expect(del.hooks.map((h) => [h.applies, h.never?.by])).toEqual([[false, "operation"]]);
    expect(grid(del)).toMatchObject({ team: "-" });
    expect(explainCell(del, del.hooks[0] as MatrixHook, NOT_MATCHED, "team", {}).detail).toBe(
      "mb is never called for pods DELETE: mutating admission policies are never consulted for DELETE",
    );
    const upd = exemptionMatrix(c, "runlevel", { ...POD_CREATE, operation: "UPDATE" });
    expect(grid(upd)).toMatchObject({ team: "X" });
  });

  it("a binding's exclusion that names objects leaves the rest of them intercepted", () => {
    const policyOnPods = (exclude: Record<string, unknown>): AdmissionSnapshot => ({
      validatingAdmissionPolicies: [
        {
          metadata: { name: "p" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: { resourceRules: [podsRule(["CREATE"], ["pods"])] },
            validations: [{ expression: "false" }],
          },
        },
      ],
      validatingAdmissionPolicyBindings: [
        {
          metadata: { name: "b" },
          spec: {
            policyName: "p",
            validationActions: ["Deny"],
            matchResources: {
              excludeResourceRules: [{ ...podsRule(["CREATE"], ["pods"]), ...exclude }],
            },
          },
        },
      ],
      namespaces,
    });
    const named = exemptionMatrix(
      compileSnapshot(policyOnPods({ resourceNames: ["only-this-one"] })),
    );
    expect(named.hooks.map((h) => [h.applies, h.conditional])).toEqual([[true, true]]);
    expect(new Set(Object.values(grid(named)))).toEqual(new Set(["X"]));
    // Without names, the exclusion leaves out every pod.
    const all = exemptionMatrix(compileSnapshot(policyOnPods({})));
    expect(all.hooks.map((h) => h.applies)).toEqual([false]);
  });
});
