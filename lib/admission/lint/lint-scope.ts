/**
 * Scope checks: L4 (virtual auth resources), L5 (cluster-wide fail-closed wildcards),
 * L11 (objectSelector used for enforcement), L12 (Exact with narrow versions),
 * L16 (recovery path blocked by a policy), L17 (validation near-misses).
 */
import type { CompiledRule } from "@/lib/admission/model/rule-matcher";
import { ruleMatches } from "@/lib/admission/model/rule-matcher";
import { virtualAuthResources } from "@/lib/admission/matching/exclusions";
import {
  webhookObject,
  webhookPath,
  type LintContext,
  type LintFinding,
} from "@/lib/admission/lint/lint-types";

function ruleCovers(
  r: CompiledRule,
  group: string,
  resource: string,
  op = "CREATE",
  namespaced = false,
): boolean {
  return ruleMatches(r, {
    operation: op,
    group,
    version: r.allVersions ? "v1" : (r.apiVersions[0] ?? "v1"),
    resource,
    subresource: "",
    namespace: namespaced ? "x" : "",
    name: "",
  });
}

/** L4: rules that name or wildcard the virtual auth resources. */
export function checkVirtualResources(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const modern =
    (ctx.input.serverMinor ?? 37) >= 37 && (ctx.input.snapshot.excludeVirtualResources ?? true);
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    const hit = virtualAuthResources().filter((gr) => {
      const [group = "", resource = ""] = gr.split("/");
      return h.match.rules.some((r) => ruleCovers(r, group, resource));
    });
    if (hit.length === 0) continue;
    const explicit = h.match.rules.some((r) =>
      r.resources.some(([res]) => hit.some((gr) => gr.endsWith(`/${res}`))),
    );
    if (modern && !explicit) continue;
    out.push({
      id: "L4",
      severity: modern ? "info" : "high",
      title: "Virtual auth resources intercepted",
      objects: [webhookObject(h)],
      explanation: modern
        ? `${h.id.name} names ${hit.join(", ")}; since 1.37 (ExcludeAdmissionWebhookVirtualResources) the apiserver never sends these to webhooks, so the entry is a no-op.`
        : `${h.id.name} matches ${hit.join(", ")}. Before 1.37 webhooks are called for these virtual resources, and a failing webhook can break authentication and authorization checks.`,
      fix: {
        description:
          "narrow the rules so they do not match TokenReview/SubjectAccessReview and the other review resources",
        target: webhookObject(h),
      },
    });
  }
  return out;
}

const CRITICAL_CLUSTER: ReadonlyArray<[string, string]> = [
  ["", "nodes"],
  ["", "namespaces"],
  ["apiextensions.k8s.io", "customresourcedefinitions"],
  ["apiregistration.k8s.io", "apiservices"],
];

/** L5: cluster-wide fail-closed wildcards, and fail-closed rules on critical cluster-scoped resources. */
export function checkWildcards(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.failurePolicy !== "Fail") continue;
    const unfiltered =
      h.match.namespaceSelector.empty && h.match.objectSelector.empty && h.conditions.length === 0;
    const wild = h.match.rules.some(
      (r) =>
        r.allGroups && r.resources.some(([res, sub]) => res === "*" && (sub === "" || sub === "*")),
    );
    const critical = CRITICAL_CLUSTER.filter(([g, res]) =>
      h.match.rules.some((r) => ruleCovers(r, g, res) || ruleCovers(r, g, res, "UPDATE")),
    );
    if (wild && unfiltered) {
      out.push({
        id: "L5",
        severity: "high",
        title: "Cluster-wide fail-closed wildcard",
        objects: [webhookObject(h)],
        explanation: `${h.id.name} matches every resource in every group with failurePolicy Fail and no selectors or matchConditions: an outage of its backend blocks nearly every write in the cluster.`,
        fix: {
          description: "use failurePolicy Ignore, or narrow the rules",
          target: webhookObject(h),
          // `add` sets the member whether or not it is present (failurePolicy is often left to default).
          jsonPatch: [{ op: "add", path: webhookPath(h, "failurePolicy"), value: "Ignore" }],
        },
      });
    } else if (critical.length > 0 && h.match.objectSelector.empty && h.conditions.length === 0) {
      out.push({
        id: "L5",
        severity: "high",
        title: "Fail-closed rule on critical cluster-scoped resources",
        objects: [webhookObject(h)],
        explanation: `${h.id.name} intercepts ${critical.map(([g, r]) => (g ? `${r}.${g}` : r)).join(", ")} with failurePolicy Fail. namespaceSelector cannot exempt cluster-scoped objects; only objectSelector, matchConditions or narrower rules can.`,
        fix: {
          description: "add an objectSelector or matchConditions, or use failurePolicy Ignore",
          target: webhookObject(h),
          jsonPatch: [{ op: "add", path: webhookPath(h, "failurePolicy"), value: "Ignore" }],
        },
      });
    }
  }
  return out;
}

/** L11: a non-empty objectSelector on a validating (or fail-closed mutating) webhook. */
export function checkObjectSelectorEnforcement(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.match.objectSelector.empty) continue;
    if (h.type === "mutating" && h.failurePolicy !== "Fail") continue;
    const connect = h.match.rules.some((r) => r.allOperations || r.operations.includes("CONNECT"));
    out.push({
      id: "L11",
      severity: h.type === "validating" ? "medium" : "info",
      title: "objectSelector used for enforcement",
      objects: [webhookObject(h)],
      explanation: `${h.id.name} only sees objects whose labels match {${h.match.objectSelector.text}}; anyone who can set labels can opt out.${connect ? " It is also never called for CONNECT (exec, attach, portforward), whose options objects have no labels." : ""}`,
      fix: {
        description:
          "enforce with matchConditions or a namespaceSelector instead, or accept opt-in semantics",
        target: webhookObject(h),
      },
    });
  }
  return out;
}

/** L12: matchPolicy Exact without `*` versions while discovery serves other versions. */
export function checkExactVersions(ctx: LintContext): LintFinding[] {
  const discovery = ctx.input.snapshot.discovery ?? [];
  if (discovery.length === 0) return [];
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.match.matchPolicy !== "Exact") continue;
    const missed = new Set<string>();
    for (const r of h.match.rules) {
      if (r.allVersions) continue;
      for (const d of discovery) {
        if (!(r.allGroups || r.apiGroups.includes(d.group))) continue;
        if (!r.resources.some(([res]) => res === "*" || res === d.resource)) continue;
        if (!r.apiVersions.includes(d.version))
          missed.add(`${d.group || "core"}/${d.version}/${d.resource}`);
      }
    }
    if (missed.size === 0) continue;
    out.push({
      id: "L12",
      severity: "medium",
      title: "Exact matchPolicy with narrow versions",
      objects: [webhookObject(h)],
      explanation: `${h.id.name} uses matchPolicy Exact, so requests through ${[...missed].join(", ")} bypass it.`,
      fix: {
        description: "use matchPolicy Equivalent (the v1 default)",
        target: webhookObject(h),
        jsonPatch: [{ op: "add", path: webhookPath(h, "matchPolicy"), value: "Equivalent" }],
      },
    });
  }
  return out;
}

/** L16: a ValidatingAdmissionPolicy that can deny changes to webhook configurations. */
export function checkRecoveryPath(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const pb of ctx.compiled.validatingPolicies) {
    if (!pb.constraints || !pb.validationActions.includes("Deny")) continue;
    const hits = ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"].filter(
      (res) =>
        ["DELETE", "UPDATE"].some((op) =>
          pb.constraints?.rules.some((r) => ruleCovers(r, "admissionregistration.k8s.io", res, op)),
        ),
    );
    if (hits.length === 0) continue;
    const file = pb.id.origin?.file;
    out.push({
      id: "L16",
      severity: "high",
      title: "The recovery path is blocked",
      objects: [
        { kind: "ValidatingAdmissionPolicy", name: pb.policyName },
        { kind: "ValidatingAdmissionPolicyBinding", name: pb.bindingName },
      ],
      explanation: `Policy ${pb.policyName} (binding ${pb.bindingName}, Deny) matches UPDATE/DELETE of ${hits.join(", ")}. Webhooks are exempt from seeing these objects so admins can always repair a broken webhook; policies are not, so this can lock that door.${pb.id.origin ? ` It is loaded from a manifest file${file ? ` (${file})` : ""}, not the API: change it there.` : ""}`,
      // A static policy is changed in its file, not through the API.
      fix: pb.id.origin
        ? undefined
        : {
            description: "exclude the webhook configuration resources",
            target: { kind: "ValidatingAdmissionPolicy", name: pb.policyName },
            merge: {
              spec: {
                matchConstraints: {
                  excludeResourceRules: [
                    {
                      apiGroups: ["admissionregistration.k8s.io"],
                      apiVersions: ["*"],
                      operations: ["*"],
                      resources: hits,
                    },
                  ],
                },
              },
            },
          },
    });
  }
  out.push(...staticRecoveryBlocks(ctx));
  return out;
}

/** The admission configuration resources API-defined webhooks never see (by resource). */
const CONFIGURATION_RESOURCES = [
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
];

/**
 * L16 for static webhooks (loaded from a manifest directory): unlike API-defined ones they are
 * called for writes of admission configuration, so one that fails closed on UPDATE or DELETE of
 * it can block the repair of every hook and policy, and only its file can change it.
 */
function staticRecoveryBlocks(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.id.origin === undefined || h.failurePolicy !== "Fail") continue;
    const hits = CONFIGURATION_RESOURCES.filter((res) =>
      ["DELETE", "UPDATE"].some((op) =>
        h.match.rules.some((r) => ruleCovers(r, "admissionregistration.k8s.io", res, op)),
      ),
    );
    if (hits.length === 0) continue;
    const file = h.id.origin.file;
    out.push({
      id: "L16",
      severity: "high",
      title: "The recovery path is blocked",
      objects: [webhookObject(h)],
      explanation: `${h.id.name} is loaded from a manifest file${file ? ` (${file})` : ""} and fails closed on UPDATE/DELETE of ${hits.join(", ")}. API-defined webhooks never see these objects, so admins can always repair a broken hook; a static webhook does, so while its backend is down no hook or policy can be changed, and only its file can change it.`,
      fix: undefined,
    });
  }
  return out;
}

/** A service path whose segments are DNS-1123 subdomains: lower case, other characters as `-`. */
function dnsPath(path: string): string {
  const segs = path.split("/").map((seg) => {
    if (seg === "") return seg;
    let out = "";
    for (const ch of seg.toLowerCase()) out += /[a-z0-9.-]/.test(ch) ? ch : "-";
    const parts = out.split(".").map((p) => p.replace(/^-+/, "").replace(/-+$/, ""));
    const joined = parts.filter((p) => p !== "").join(".");
    return joined === "" ? "x" : joined;
  });
  return segs.join("/");
}

/** L17: wildcard quirks in `resources` and service paths the apiserver rejects. */
export function checkNearMisses(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    for (const r of h.match.rules) {
      const entries = r.resources.map(([res, sub]) => (sub === "" ? res : `${res}/${sub}`));
      const plainWithSub = entries.some((e) => e === "*") && entries.some((e) => e.includes("/"));
      const bare = r.resources.filter(
        ([res, sub]) => res !== "*" && sub === "" && entries.includes(`${res}/*`),
      );
      if (!plainWithSub && bare.length === 0) continue;
      out.push({
        id: "L17",
        severity: "info",
        title: "Redundant or surprising resource wildcards",
        objects: [webhookObject(h)],
        explanation: `rule ${r.index} lists [${entries.join(", ")}]: '*' matches no subresources, 'res/*' also matches the resource itself, and the apiserver rejects some combinations depending on their order.`,
        fix: { description: "list either `*/*` or explicit entries", target: webhookObject(h) },
      });
    }
  }
  const raw = [
    ...(ctx.input.snapshot.mutatingWebhookConfigurations ?? []).map(
      (cfg) => ["MutatingWebhookConfiguration", cfg] as const,
    ),
    ...(ctx.input.snapshot.validatingWebhookConfigurations ?? []).map(
      (cfg) => ["ValidatingWebhookConfiguration", cfg] as const,
    ),
  ];
  for (const [kind, cfg] of raw) {
    (cfg.webhooks ?? []).forEach((w, i) => {
      const path = w.clientConfig.service?.path;
      if (path === undefined) return;
      const bad = path
        .split("/")
        .filter(
          (seg) =>
            seg !== "" &&
            !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(seg),
        );
      if (bad.length === 0) return;
      out.push({
        id: "L17",
        severity: "info",
        title: "Service path segments are not DNS-1123 subdomains",
        objects: [{ kind, name: cfg.metadata?.name ?? "", hook: w.name }],
        explanation: `clientConfig.service.path ${path} has segments ${bad.join(", ")} the apiserver rejects for service paths; a url clientConfig accepts them.`,
        fix: {
          description:
            "rename the path (the webhook server must serve the new one), or use clientConfig.url",
          target: { kind, name: cfg.metadata?.name ?? "", hook: w.name },
          jsonPatch: [
            {
              op: "replace",
              path: `/webhooks/${i}/clientConfig/service/path`,
              value: dnsPath(path),
            },
          ],
        },
      });
    });
  }
  return out;
}
