/**
 * L20–L24 on a world seeded with each engine fault (objects shaped as the engines write them,
 * lib/admission/engines/engine-objects.ts), none on the same world with the faults repaired, and
 * a cluster without engines linted exactly as before.
 */
import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import type { LintInput } from "@/lib/admission/lint/lint-types";
import {
  gatekeeperConstraint,
  gatekeeperGeneratedBinding,
  gatekeeperGeneratedPolicy,
  gatekeeperTemplate,
  gatekeeperValidatingConfiguration,
  kubewardenPolicy,
  kubewardenPolicyConfiguration,
  kyvernoClusterPolicy,
  kyvernoGeneratedBinding,
  kyvernoGeneratedPolicy,
  kyvernoResourceValidatingConfiguration,
} from "@/lib/admission/engines/engine-objects";
import { NO_ENGINE_SOURCES, parseEngineObjects } from "@/lib/admission/engines/sources";
import { hook } from "@/lib/admission/model/test-helpers";

const PODS = [
  { operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
];
const NAMESPACES = {
  default: { "kubernetes.io/metadata.name": "default" },
  "gatekeeper-system": { "kubernetes.io/metadata.name": "gatekeeper-system" },
  kyverno: { "kubernetes.io/metadata.name": "kyverno" },
  kubewarden: { "kubernetes.io/metadata.name": "kubewarden" },
};

/** Deny through the generated policy only; the webhook warns. */
const SCOPED = [
  { action: "deny", points: ["vap.k8s.io"] },
  { action: "warn", points: ["validation.gatekeeper.sh"] },
];

/** The engines' objects, with every fault when `faulty`, none otherwise. */
function world(faulty: boolean): LintInput {
  const template = { name: "k8srequiredlabels", kind: "K8sRequiredLabels", uid: "t1" };
  const scoped = faulty ? {} : { enforcementAction: "scoped", scoped: SCOPED };
  const engineObjects = [
    gatekeeperTemplate({ ...template, vapState: { state: "generated" } }),
    // L21: a template whose policy Gatekeeper could not generate.
    gatekeeperTemplate({
      name: "k8sallowedrepos",
      kind: "K8sAllowedRepos",
      vapState: faulty
        ? {
            state: "error",
            warning: "ValidatingAdmissionPolicy is not generated: unsupported operation",
          }
        : { state: "generated" },
    }),
    // L20: denied at both points unless scoped to the VAP.
    gatekeeperConstraint({
      kind: "K8sRequiredLabels",
      name: "must-have-owner",
      uid: "c1",
      ...scoped,
    }),
    // L22: its binding is missing (scoped too, so the repaired world enforces it once).
    gatekeeperConstraint({
      kind: "K8sRequiredLabels",
      name: "must-have-team",
      uid: "c2",
      totalViolations: 2,
      enforcementAction: "scoped",
      scoped: SCOPED,
    }),
    kyvernoClusterPolicy({
      name: "require-labels",
      uid: "k1",
      generated: { generated: true, message: "" },
    }),
    // L23: evaluation timeout above the webhook's.
    kubewardenPolicy({ name: "slow", timeoutSeconds: 10, timeoutEvalSeconds: faulty ? 15 : 5 }),
  ];
  const kyvernoSource = { kind: "ClusterPolicy" as const, name: "require-labels", uid: "k1" };
  const gatekeeperHooks = gatekeeperValidatingConfiguration({
    rules: PODS,
    // L24: fail-closed over gatekeeper-system, unless it keeps Gatekeeper's exemption label out.
    failurePolicy: faulty ? "Fail" : "Ignore",
  });
  return {
    snapshot: {
      namespaces: NAMESPACES,
      validatingWebhookConfigurations: [
        gatekeeperHooks,
        // L20 (Kyverno): a fine-grained hook still carries the policy whose VAP was generated.
        kyvernoResourceValidatingConfiguration(faulty ? { fineGrained: ["require-labels"] } : {}),
        kubewardenPolicyConfiguration({ name: "slow" }),
      ],
      validatingAdmissionPolicies: [
        gatekeeperGeneratedPolicy(template),
        kyvernoGeneratedPolicy(kyvernoSource),
      ],
      validatingAdmissionPolicyBindings: [
        gatekeeperGeneratedBinding({
          kind: "K8sRequiredLabels",
          name: "must-have-owner",
          uid: "c1",
        }),
        ...(faulty
          ? []
          : [
              gatekeeperGeneratedBinding({
                kind: "K8sRequiredLabels",
                name: "must-have-team",
                uid: "c2",
              }),
            ]),
        kyvernoGeneratedBinding(kyvernoSource),
      ],
    },
    engines: parseEngineObjects(engineObjects),
  };
}

const engineFindings = (input: LintInput) =>
  lint(input).filter((f) => ["L20", "L21", "L22", "L23", "L24"].includes(f.id));

describe("engine checks", () => {
  const found = engineFindings(world(true));
  const summary = found.map((f) =>
    `${f.id} ${f.sourcePolicy ? `${f.sourcePolicy.kind}/${f.sourcePolicy.name}` : ""}`.trim(),
  );

  it("raises each fault of the seeded world, naming the engine policy", () => {
    expect(summary.sort()).toEqual(
      [
        "L20 ClusterPolicy/require-labels",
        "L20 K8sRequiredLabels/must-have-owner",
        "L21 ConstraintTemplate/k8sallowedrepos",
        "L22 K8sRequiredLabels/must-have-team",
        "L23 ClusterAdmissionPolicy/slow",
        "L24",
        "L24",
      ].sort(),
    );
  });

  it("says why, with the engine's own reason", () => {
    const l21 = found.find((f) => f.id === "L21");
    expect(l21?.explanation).toContain("unsupported operation");
    const l23 = found.find((f) => f.id === "L23");
    expect(l23?.explanation).toContain("15s");
    expect(l23?.explanation).toContain("clusterwide-slow.kubewarden.admission gives up after 10s");
    const l24 = found.filter((f) => f.id === "L24");
    expect(l24.map((f) => f.objects[0]?.hook)).toEqual([
      "validation.gatekeeper.sh",
      "check-ignore-label.gatekeeper.sh",
    ]);
    expect(
      l24.every((f) => f.engine === "gatekeeper" && f.objects[1]?.name === "gatekeeper-system"),
    ).toBe(true);
  });

  it("raises none on the repaired world", () => {
    expect(engineFindings(world(false))).toEqual([]);
  });
});

describe("findings on engine-owned objects", () => {
  it("carry the engine and the source policy", () => {
    const input = world(false);
    const withSlowHook: LintInput = {
      ...input,
      snapshot: {
        ...input.snapshot,
        validatingWebhookConfigurations: [
          kubewardenPolicyConfiguration({ name: "slow" }, { timeoutSeconds: 20 }),
        ],
      },
    };
    const l9 = lint(withSlowHook).find((f) => f.id === "L9");
    expect(l9?.engine).toBe("kubewarden");
    expect(l9?.sourcePolicy).toMatchObject({ kind: "ClusterAdmissionPolicy", name: "slow" });
    expect(l9?.objects[0]).toMatchObject({ engine: "kubewarden", sourcePolicy: { name: "slow" } });
  });
});

describe("a cluster without engines", () => {
  it("lints exactly as without the engine input", () => {
    const input: LintInput = {
      snapshot: {
        namespaces: NAMESPACES,
        validatingWebhookConfigurations: [
          {
            metadata: { name: "cfg" },
            webhooks: [hook("a.example.com", { failurePolicy: "Fail", timeoutSeconds: 20 })],
          },
        ],
      },
    };
    const before = lint(input);
    expect(lint({ ...input, engines: NO_ENGINE_SOURCES })).toEqual(before);
    expect(before.some((f) => f.engine !== undefined || f.objects.some((o) => o.engine))).toBe(
      false,
    );
    expect(before.filter((f) => Number(f.id.slice(1)) >= 20)).toEqual([]);
  });
});
