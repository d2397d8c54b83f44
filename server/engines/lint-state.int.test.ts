/**
 * The webhook pages' lint with the policy engines, against the real apiserver (the test stack
 * installs Gatekeeper's CRDs): the lint state read as the request's identity carries Gatekeeper's
 * policies and the admission policies it owns, and the dashboard's lint raises L20 (a Constraint
 * enforced by its generated binding and by Gatekeeper's webhook), L21 (a template whose admission
 * policy failed to generate), L22 (a Constraint acting at vap.k8s.io without its binding) and L24
 * (Gatekeeper's fail-closed hook over its own namespace), each naming the engine policy; none of
 * them on the clean world before the objects are made and after they are gone. The Engines page's
 * report carries the same findings per engine, and a viewer reads the engines' policies through
 * the aggregated ClusterRole. Objects are built with lib/admission/engines/engine-objects.ts under
 * names of this run; the hooks fail closed only in a namespace of this run, which does not exist.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { readStack } from "../../cluster/harness/stack";
import { adminKube, type AdminKube } from "../../test/oracle/admin-kube";
import { httpsRequest } from "../../cluster/https-json";
import { SEED_DIR } from "../../tools/engine-crds/engine-crds";
import {
  gatekeeperConstraint,
  gatekeeperGeneratedBinding,
  gatekeeperGeneratedPolicy,
  gatekeeperTemplate,
  gatekeeperValidatingConfiguration,
} from "@/lib/admission/engines/engine-objects";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import { lintConfigurations } from "@/lib/webhooks/findings";
import { kubeClientFor, type KubeClient } from "@/server/kube/client";
import { readLintState } from "./lint-state";
import { readEngines } from "./read";

const id = `lsg${Date.now().toString(36)}`;
const ADM = "/apis/admissionregistration.k8s.io/v1";
const CT = "/apis/templates.gatekeeper.sh/v1/constrainttemplates";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
/** Template and Constraint kind of this run: generated, with a Constraint on each side. */
const TEMPLATE = `${id}labels`;
const KIND = `${id[0]!.toUpperCase()}${id.slice(1)}Labels`;
const PLURAL = KIND.toLowerCase();
/** A second template whose admission policy Gatekeeper failed to generate. */
const BROKEN = `${id}broken`;
const TWICE = "enforced-twice";
const UNBOUND = "no-binding";
const CONFIG = `${id}-gatekeeper-validating-webhook-configuration`;
/** Gatekeeper's namespace in this run (never created: the hooks fail closed only there). */
const NS = `${id}-gatekeeper`;
const GENERATION_ERROR = "template has no validations to generate from";

let stack: ReturnType<typeof readStack>;
let kube: AdminKube;
let admin: KubeClient;
let viewer: KubeClient;
const created: string[] = [];

async function make(collection: string, body: unknown): Promise<Record<string, unknown>> {
  const obj = await kube.kubeOk("POST", collection, body);
  created.push(`${collection}/${String((obj["metadata"] as { name: string }).name)}`);
  return obj;
}

async function patchStatus(p: string, status: unknown): Promise<void> {
  const res = await httpsRequest(`${stack.server}${p}/status`, {
    method: "PATCH",
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
    contentType: "application/merge-patch+json",
    body: { status },
  });
  if (res.status !== 200) throw new Error(`status of ${p}: ${res.status} ${res.body}`);
}

const uid = (o: Record<string, unknown>) => String((o["metadata"] as { uid: string }).uid);

/** The lint as the webhook pages run it, on the lint state read as `client`'s identity. */
async function dashboardLint(client: KubeClient, context: string): Promise<LintFinding[]> {
  const live = await readLintState({ client, context });
  const m = await kube.kubeOk("GET", `${ADM}/mutatingwebhookconfigurations`);
  const v = await kube.kubeOk("GET", `${ADM}/validatingwebhookconfigurations`);
  return lintConfigurations((m["items"] ?? []) as never[], (v["items"] ?? []) as never[], live);
}

/** This run's engine findings: L20–L24 naming one of its objects. */
function ours(findings: readonly LintFinding[]): LintFinding[] {
  return findings.filter(
    (f) =>
      ["L20", "L21", "L22", "L23", "L24"].includes(f.id) &&
      f.objects.some((o) => o.name.includes(id) || o.kind.includes(KIND)),
  );
}

function summary(findings: readonly LintFinding[]): string[] {
  return findings
    .map(
      (f) =>
        `${f.id} ${f.id !== "L24" && f.sourcePolicy ? `${f.sourcePolicy.kind}/${f.sourcePolicy.name}` : "-"} ${f.objects
          .filter((o) => o.hook !== undefined)
          .map((o) => o.hook)
          .join(",")}`,
    )
    .sort();
}

beforeAll(() => {
  stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  kube = adminKube(stack);
  admin = kubeClientFor(stack.contexts.admin);
  viewer = kubeClientFor(stack.contexts.viewer);
});

afterAll(async () => {
  for (const p of created.reverse()) await kube?.kube("DELETE", p).catch(() => undefined);
});

describe("the webhook pages' lint with Gatekeeper", () => {
  it("finds nothing of the engine checks on a clean world, and carries Gatekeeper's (empty) part", async () => {
    const live = await readLintState({ client: admin, context: stack.contexts.admin });
    // Gatekeeper's kinds are served (the stack installs its CRDs): its part is there, empty of ours.
    expect(live.engines?.sources.policies.some((p) => p.ref.name.includes(id))).toBe(false);
    expect(ours(await dashboardLint(admin, stack.contexts.admin))).toEqual([]);
  });

  it("raises L20, L21, L22 and L24 on the seeded world, naming the engine policy and the hook", async () => {
    // The Constraint kind's CRD, as Gatekeeper generates it, renamed for this run.
    const [crd] = parseAllDocuments(
      readFileSync(path.join(SEED_DIR, "gatekeeper-generated.yaml"), "utf8"),
    )
      .map((d) => d.toJSON() as { kind?: string; spec?: Record<string, unknown> })
      .filter((o) => o?.kind === "CustomResourceDefinition");
    if (!crd?.spec) throw new Error("no Constraint CRD in the seed");
    await make(CRDS, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${PLURAL}.constraints.gatekeeper.sh` },
      spec: {
        ...crd.spec,
        names: {
          ...(crd.spec["names"] as object),
          kind: KIND,
          listKind: `${KIND}List`,
          plural: PLURAL,
          singular: PLURAL,
        },
      },
    });
    await expect
      .poll(
        async () =>
          (await kube.kube("GET", `/apis/constraints.gatekeeper.sh/v1beta1/${PLURAL}`)).status,
        { timeout: 30_000 },
      )
      .toBe(200);

    const template = await make(CT, gatekeeperTemplate({ name: TEMPLATE, kind: KIND }));
    await patchStatus(
      `${CT}/${TEMPLATE}`,
      (
        gatekeeperTemplate({ name: TEMPLATE, kind: KIND, vapState: { state: "generated" } }) as {
          status: unknown;
        }
      ).status,
    );
    await make(CT, gatekeeperTemplate({ name: BROKEN, kind: `${KIND}Broken` }));
    await patchStatus(
      `${CT}/${BROKEN}`,
      (
        gatekeeperTemplate({
          name: BROKEN,
          kind: `${KIND}Broken`,
          vapState: { state: "error", warning: GENERATION_ERROR },
        }) as { status: unknown }
      ).status,
    );
    const cPath = `/apis/constraints.gatekeeper.sh/v1beta1/${PLURAL}`;
    const twice = await make(cPath, gatekeeperConstraint({ kind: KIND, name: TWICE }));
    await make(
      cPath,
      gatekeeperConstraint({
        kind: KIND,
        name: UNBOUND,
        enforcementAction: "scoped",
        scoped: [{ action: "deny", points: ["vap.k8s.io"] }],
      }),
    );
    await make(
      `${ADM}/validatingadmissionpolicies`,
      gatekeeperGeneratedPolicy({ name: TEMPLATE, kind: KIND, uid: uid(template) }),
    );
    await make(
      `${ADM}/validatingadmissionpolicybindings`,
      gatekeeperGeneratedBinding({ kind: KIND, name: TWICE, uid: uid(twice) }),
    );
    // Gatekeeper's webhook configuration, fail-closed on pods in its own namespace (of this run).
    const cfg = gatekeeperValidatingConfiguration({
      namespace: NS,
      failurePolicy: "Fail",
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
      ],
      namespaceSelector: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [NS] }],
      },
    });
    await make(`${ADM}/validatingwebhookconfigurations`, {
      ...cfg,
      metadata: { ...cfg.metadata, name: CONFIG },
    });

    const expected = [
      `L20 ${KIND}/${TWICE} validation.gatekeeper.sh`,
      `L21 ConstraintTemplate/${BROKEN} `,
      `L22 ${KIND}/${UNBOUND} `,
      "L24 - check-ignore-label.gatekeeper.sh",
      "L24 - validation.gatekeeper.sh",
    ];
    // The watch hub serves the engines' collections: wait until it has seen this run's objects.
    await expect
      .poll(async () => summary(ours(await dashboardLint(admin, stack.contexts.admin))), {
        timeout: 30_000,
      })
      .toEqual(expected);

    const findings = ours(await dashboardLint(admin, stack.contexts.admin));
    const l20 = findings.find((f) => f.id === "L20");
    expect(l20).toMatchObject({
      engine: "gatekeeper",
      sourcePolicy: { apiVersion: "constraints.gatekeeper.sh/v1beta1", kind: KIND, name: TWICE },
    });
    expect(l20?.objects).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: "ValidatingWebhookConfiguration",
          name: CONFIG,
          hook: "validation.gatekeeper.sh",
        }),
        expect.objectContaining({
          kind: "ValidatingAdmissionPolicyBinding",
          name: `gatekeeper-${PLURAL}-${TWICE}`,
        }),
      ]),
    );
    expect(findings.find((f) => f.id === "L21")?.explanation).toContain(GENERATION_ERROR);
    const l24 = findings.find((f) => f.id === "L24");
    expect(l24?.engine).toBe("gatekeeper");
    expect(l24?.objects).toContainEqual({ kind: "Namespace", name: NS });

    // The lint state carries only the admission policies and bindings an engine owns.
    const live = await readLintState({ client: admin, context: stack.contexts.admin });
    const names = [
      ...(live.engines?.validatingAdmissionPolicies ?? []),
      ...(live.engines?.validatingAdmissionPolicyBindings ?? []),
    ].map((o) => o.metadata?.name ?? "");
    expect(names).toEqual(
      expect.arrayContaining([`gatekeeper-${TEMPLATE}`, `gatekeeper-${PLURAL}-${TWICE}`]),
    );
    const all = await kube.kubeOk("GET", `${ADM}/validatingadmissionpolicies`);
    const unowned = ((all["items"] ?? []) as Array<{ metadata: { name: string } }>)
      .map((p) => p.metadata.name)
      .filter((n) => !n.startsWith("gatekeeper-") && !n.startsWith("cpol-"));
    for (const n of unowned) expect(names).not.toContain(n);

    // The Engines page's report: the same findings under Gatekeeper.
    const engines = await readEngines({ client: admin, context: stack.contexts.admin });
    const gk = engines.engines.find((e) => e.engine === "gatekeeper");
    expect(summary(ours(gk?.findings ?? []))).toEqual(expected);
  });

  it("reads Gatekeeper's policies as a viewer (the aggregated ClusterRole), with the same findings", async () => {
    const live = await readLintState({ client: viewer, context: stack.contexts.viewer });
    expect(live.notices.filter((n) => n.includes("gatekeeper.sh"))).toEqual([]);
    expect(live.engines?.sources.policies.map((p) => p.ref.name)).toEqual(
      expect.arrayContaining([TEMPLATE, BROKEN, TWICE, UNBOUND]),
    );
    await expect
      .poll(async () => summary(ours(await dashboardLint(viewer, stack.contexts.viewer))), {
        timeout: 30_000,
      })
      .toContain(`L20 ${KIND}/${TWICE} validation.gatekeeper.sh`);
  });

  it("finds nothing once the objects are gone", async () => {
    for (const p of created.splice(0).reverse()) await kube.kube("DELETE", p);
    await expect
      .poll(async () => ours(await dashboardLint(admin, stack.contexts.admin)), {
        timeout: 30_000,
      })
      .toEqual([]);
  });
});
