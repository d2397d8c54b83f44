/**
 * Ownership against the real apiserver: webhook configurations, ValidatingAdmissionPolicies and
 * bindings shaped as Gatekeeper, Kyverno and Kubewarden write them (engine-objects.ts cites each
 * engine's source; built-in kinds, no engine CRDs needed), created with the engines' field
 * managers and owner references, then edited by a second field manager, read back as the
 * apiserver returns them and recognised with the right engine, source policy and certainty.
 * Every hook is fail-open on a group nothing serves, so other tests' requests never reach them.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../../cluster/harness/stack";
import { httpsRequest } from "../../../cluster/https-json";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import {
  gatekeeperGeneratedBinding,
  gatekeeperGeneratedPolicy,
  gatekeeperTemplate,
  gatekeeperValidatingConfiguration,
  kubewardenPolicyConfiguration,
  kyvernoGeneratedBinding,
  kyvernoGeneratedPolicy,
  kyvernoResourceValidatingConfiguration,
} from "@/lib/admission/engines/engine-objects";
import { ownershipOf, recogniseOwnership } from "@/lib/admission/engines/ownership";
import { metaOf } from "@/lib/admission/engines/unstructured";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { main } from "../../../cli/main";

const id = `eng${Date.now().toString(36)}`;
const ADM = "/apis/admissionregistration.k8s.io/v1";
const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const ROLE = `${id}:webhook`;
const KYVERNO_CFG = `${id}-kyverno-resource-validating-webhook-cfg`;
const GATEKEEPER_CFG = `${id}-gatekeeper-validating-webhook-configuration`;
const CPOL = `${id}-require-labels`;
const TEMPLATE = `${id}k8srequiredlabels`;
const KIND = `${id[0]!.toUpperCase()}${id.slice(1)}K8sRequiredLabels`;
const CONSTRAINT = "must-have-owner";
const KUBEWARDEN_POLICY = `${id}-safe-labels`;

let stack: StackInfo;
let admin: AdminKube;
const created: string[] = [];

/** Creates an object as `manager` (the engine's field manager), remembering it for cleanup. */
async function create(collection: string, body: { metadata?: { name?: string } }, manager: string) {
  await admin.kubeOk("POST", `${collection}?fieldManager=${encodeURIComponent(manager)}`, body);
  created.push(`${collection}/${body.metadata?.name ?? ""}`);
}

/** A hand edit by a second field manager (a merge patch adding an annotation). */
async function handEdit(path: string): Promise<void> {
  const res = await httpsRequest(`${stack.server}${path}?fieldManager=kubectl-edit`, {
    method: "PATCH",
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
    contentType: "application/merge-patch+json",
    body: { metadata: { annotations: { "portcullis.test/edited": "by hand" } } },
  });
  if (res.status >= 300) throw new Error(`PATCH ${path}: ${res.status} ${res.body.slice(0, 300)}`);
}

async function list<T>(collection: string): Promise<T[]> {
  const l = await admin.kubeOk("GET", collection);
  const items = (l["items"] ?? []) as Array<T & { metadata?: { name?: string } }>;
  return items.filter((o) => o.metadata?.name?.includes(id));
}

let snapshot: AdmissionSnapshot;

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  // Kyverno's webhook configurations are owned by its `*:webhook` ClusterRole: a real one here.
  const role = await admin.kubeOk("POST", `${RBAC}/clusterroles`, {
    metadata: { name: ROLE, labels: { "app.kubernetes.io/component": "kyverno" } },
    rules: [],
  });
  created.push(`${RBAC}/clusterroles/${ROLE}`);
  const roleUid = String((role["metadata"] as { uid?: string }).uid);
  const kyverno = kyvernoResourceValidatingConfiguration({
    owner: { name: ROLE, uid: roleUid },
    fineGrained: [CPOL],
  });
  await create(
    `${ADM}/validatingwebhookconfigurations`,
    { ...kyverno, metadata: { ...kyverno.metadata, name: KYVERNO_CFG } },
    "Kyverno",
  );
  // A 20 s timeout (lint L9) on hooks the engines own, for the command line's findings below.
  const gatekeeper = gatekeeperValidatingConfiguration({ timeoutSeconds: 20 });
  await create(
    `${ADM}/validatingwebhookconfigurations`,
    { ...gatekeeper, metadata: { ...gatekeeper.metadata, name: GATEKEEPER_CFG } },
    "gatekeeper",
  );
  // Kubewarden's controller binary is `controller` (Dockerfile.controller).
  await create(
    `${ADM}/validatingwebhookconfigurations`,
    kubewardenPolicyConfiguration({ name: KUBEWARDEN_POLICY }, { timeoutSeconds: 20 }),
    "controller",
  );
  await create(
    `${ADM}/validatingwebhookconfigurations`,
    {
      metadata: { name: `${id}-plain` },
      webhooks: [
        {
          name: "plain.portcullis.test",
          clientConfig: { url: "https://127.0.0.1:9/x" },
          rules: [
            {
              operations: ["CREATE"],
              apiGroups: ["engines.portcullis.test"],
              apiVersions: ["v1"],
              resources: ["configmaps"],
            },
          ],
          failurePolicy: "Ignore",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    } as { metadata: { name: string } },
    "kubectl-create",
  );
  const cpol = { kind: "ClusterPolicy" as const, name: CPOL, uid: randomUUID() };
  await create(`${ADM}/validatingadmissionpolicies`, kyvernoGeneratedPolicy(cpol), "Kyverno");
  await create(
    `${ADM}/validatingadmissionpolicybindings`,
    kyvernoGeneratedBinding(cpol),
    "Kyverno",
  );
  // The generated policy's owner is a ConstraintTemplate that exists: the stack serves Gatekeeper's
  // CRDs, so the garbage collector would delete a policy whose owner it can look up and not find.
  const template = await admin.kubeOk(
    "POST",
    "/apis/templates.gatekeeper.sh/v1/constrainttemplates",
    gatekeeperTemplate({ name: TEMPLATE, kind: KIND }),
  );
  created.push(`/apis/templates.gatekeeper.sh/v1/constrainttemplates/${TEMPLATE}`);
  const templateUid = String((template["metadata"] as { uid?: string }).uid);
  await create(
    `${ADM}/validatingadmissionpolicies`,
    gatekeeperGeneratedPolicy({ name: TEMPLATE, kind: KIND, uid: templateUid }),
    "gatekeeper",
  );
  const binding = gatekeeperGeneratedBinding({ kind: KIND, name: CONSTRAINT, uid: randomUUID() });
  await create(
    `${ADM}/validatingadmissionpolicybindings`,
    {
      ...binding,
      metadata: { ...binding.metadata, name: `gatekeeper-${KIND.toLowerCase()}-${CONSTRAINT}` },
    },
    "gatekeeper",
  );
  for (const name of [KYVERNO_CFG, GATEKEEPER_CFG, `clusterwide-${KUBEWARDEN_POLICY}`])
    await handEdit(`${ADM}/validatingwebhookconfigurations/${name}`);
  await handEdit(`${ADM}/validatingadmissionpolicies/cpol-${CPOL}`);

  snapshot = {
    validatingWebhookConfigurations: await list(`${ADM}/validatingwebhookconfigurations`),
    validatingAdmissionPolicies: await list(`${ADM}/validatingadmissionpolicies`),
    validatingAdmissionPolicyBindings: await list(`${ADM}/validatingadmissionpolicybindings`),
  };
});

afterAll(async () => {
  for (const p of created.reverse()) await admin?.kube("DELETE", p).catch(() => undefined);
});

describe("engine objects read back from the apiserver", () => {
  it("keep both field managers and the owner references", () => {
    const cfg = snapshot.validatingWebhookConfigurations?.find(
      (c) => c.metadata?.name === KYVERNO_CFG,
    );
    const meta = metaOf(cfg);
    expect(meta.managers).toEqual(["Kyverno", "kubectl-edit"]);
    expect(meta.ownerReferences).toMatchObject([{ kind: "ClusterRole", name: ROLE }]);
  });

  it("recognise Kyverno's configuration, its fine-grained hook's policy, and its generated policy", () => {
    const index = recogniseOwnership(snapshot);
    const cfg = ownershipOf(index, "ValidatingWebhookConfiguration", KYVERNO_CFG);
    expect(cfg).toMatchObject({ engine: "kyverno", certainty: "strong" });
    expect(cfg?.evidence).toEqual(
      expect.arrayContaining([
        "label webhook.kyverno.io/managed-by=kyverno",
        "field manager Kyverno",
        expect.stringContaining(`ClusterRole ${ROLE}`),
      ]),
    );
    expect(ownershipOf(index, "ValidatingWebhookConfiguration", KYVERNO_CFG, 2)).toMatchObject({
      engine: "kyverno",
      source: { kind: "ClusterPolicy", name: CPOL },
      sourceCertainty: "strong",
    });
    for (const [kind, name] of [
      ["ValidatingAdmissionPolicy", `cpol-${CPOL}`],
      ["ValidatingAdmissionPolicyBinding", `cpol-${CPOL}-binding`],
    ] as const)
      expect(ownershipOf(index, kind, name)).toMatchObject({
        engine: "kyverno",
        certainty: "proof",
        source: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: CPOL },
        sourceCertainty: "proof",
      });
  });

  it("recognise Gatekeeper's configuration, template policy and Constraint binding", () => {
    const index = recogniseOwnership(snapshot);
    expect(ownershipOf(index, "ValidatingWebhookConfiguration", GATEKEEPER_CFG, 0)).toMatchObject({
      engine: "gatekeeper",
      certainty: "strong",
      evidence: expect.arrayContaining([
        "label gatekeeper.sh/system=yes",
        "field manager gatekeeper",
      ]),
    });
    expect(ownershipOf(index, "ValidatingAdmissionPolicy", `gatekeeper-${TEMPLATE}`)).toMatchObject(
      {
        engine: "gatekeeper",
        certainty: "proof",
        source: { kind: "ConstraintTemplate", name: TEMPLATE },
      },
    );
    expect(
      ownershipOf(
        index,
        "ValidatingAdmissionPolicyBinding",
        `gatekeeper-${KIND.toLowerCase()}-${CONSTRAINT}`,
      ),
    ).toMatchObject({
      engine: "gatekeeper",
      certainty: "proof",
      source: { apiVersion: "constraints.gatekeeper.sh/v1beta1", kind: KIND, name: CONSTRAINT },
    });
  });

  it("recognise Kubewarden's per-policy configuration by label and annotations", () => {
    const index = recogniseOwnership(snapshot);
    expect(
      ownershipOf(index, "ValidatingWebhookConfiguration", `clusterwide-${KUBEWARDEN_POLICY}`, 0),
    ).toMatchObject({
      engine: "kubewarden",
      certainty: "strong",
      source: { kind: "ClusterAdmissionPolicy", name: KUBEWARDEN_POLICY },
      sourceCertainty: "strong",
    });
  });

  it("recognise nothing in a plain configuration", () => {
    const index = recogniseOwnership(snapshot);
    expect(ownershipOf(index, "ValidatingWebhookConfiguration", `${id}-plain`)).toBeUndefined();
    expect(ownershipOf(index, "ValidatingWebhookConfiguration", `${id}-plain`, 0)).toBeUndefined();
  });
});

describe("portcullis lint --context", () => {
  it("names the engine and the engine policy on findings about engine-owned hooks", async () => {
    let out = "";
    await main(
      ["lint", "--context", stack.contexts.admin, "--kubeconfig", stack.kubeconfig, "-o", "json"],
      { stdout: (t) => (out += t), stderr: () => undefined },
    );
    const report = JSON.parse(out) as {
      findings: Array<{
        id: string;
        engine?: string;
        sourcePolicy?: { kind: string; name: string };
        objects: Array<{ kind: string; name: string; hook?: string; engine?: string }>;
      }>;
    };
    const l9 = (name: string) =>
      report.findings.find((f) => f.id === "L9" && f.objects[0]?.name === name);
    expect(l9(GATEKEEPER_CFG)).toMatchObject({
      engine: "gatekeeper",
      objects: [
        { kind: "ValidatingWebhookConfiguration", name: GATEKEEPER_CFG, engine: "gatekeeper" },
      ],
    });
    expect(l9(`clusterwide-${KUBEWARDEN_POLICY}`)).toMatchObject({
      engine: "kubewarden",
      sourcePolicy: { kind: "ClusterAdmissionPolicy", name: KUBEWARDEN_POLICY },
    });
    expect(l9(`${id}-plain`)).toBeUndefined();
    expect(report.findings.filter((f) => f.objects.some((o) => o.name === `${id}-plain`))).toEqual(
      report.findings
        .filter((f) => f.objects.some((o) => o.name === `${id}-plain`))
        .filter((f) => f.engine === undefined),
    );
  });
});
