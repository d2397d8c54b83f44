/**
 * The policy engines in the local control plane: their CustomResourceDefinitions (generated from
 * their Go API types, tools/engine-crds) and, for the demo and the tests, a Gatekeeper world as
 * Gatekeeper v3.23.1 leaves it behind.
 *
 * No engine controller runs here: Gatekeeper's manager (with OPA, its audit and its webhook
 * server) takes longer to build than the control plane budget allows and needs a pod network for
 * its webhook. The objects it would create are made by its own code instead
 * (tools/engine-crds/gatekeeper-objects: the Constraint CRD, the generated
 * ValidatingAdmissionPolicy and its bindings) and created here with the owner references and the
 * status Gatekeeper writes:
 *
 * - owner references as controllerutil.SetControllerReference sets them
 *   (pkg/controller/constrainttemplate/constrainttemplate_controller.go generateCRD and manageVAP:
 *   the ConstraintTemplate owns its Constraint CRD and its VAP;
 *   pkg/controller/constraint/constraint_controller.go manageVAPB: a Constraint owns its binding);
 * - the ConstraintTemplate's status.created and status.byPod[] with vapGenerationStatus
 *   (apis/status/v1beta1/constrainttemplatepodstatus_types.go, copied onto the template by
 *   pkg/controller/constrainttemplatestatus/constrainttemplatestatus_controller.go);
 * - each Constraint's status.byPod[] (apis/status/v1beta1/constraintpodstatus_types.go) and
 *   status.totalViolations (pkg/audit/manager.go);
 * - the validating webhook configuration of Gatekeeper's own manifest (deploy/gatekeeper.yaml),
 *   with one change: both hooks get an objectSelector on `portcullis.dev/engine-demo`, so that
 *   neither is called for anything but the engine demo's objects (check-ignore-label.gatekeeper.sh
 *   fails closed on every namespace write, and its Service has no endpoints here).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { httpsRequest, type HttpsJsonResponse } from "./https-json";
import { CRDS_DIR, ENGINE_CRD_FILES, SEED_DIR } from "../tools/engine-crds/engine-crds";
import {
  kyvernoClusterPolicy,
  kyvernoGeneratedBinding,
  kyvernoGeneratedPolicy,
} from "../lib/admission/engines/engine-objects";

type Obj = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown> & {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
  };
};

export type EngineName = keyof typeof ENGINE_CRD_FILES;

/** The label every object of the engine demo carries, and that the demo's engine hooks select. */
export const ENGINE_DEMO_LABEL = "portcullis.dev/engine-demo";

function readYaml(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null && typeof o === "object");
}

/** The engines' CRDs as committed (tools/engine-crds/crds). */
export function engineCrds(
  engines: readonly EngineName[] = ["gatekeeper", "kyverno", "kubewarden"],
): Obj[] {
  return engines.flatMap((e) =>
    ENGINE_CRD_FILES[e].flatMap((f) => readYaml(path.join(CRDS_DIR, f))),
  );
}

type Api = (
  method: string,
  p: string,
  body?: unknown,
  contentType?: string,
) => Promise<HttpsJsonResponse>;

/** An admin client of the control plane. */
export function engineApi(opts: { server: string; ca: string | Buffer; token: string }): Api {
  return (method, p, body, contentType) =>
    httpsRequest(`${opts.server}${p}`, {
      method,
      body,
      ca: opts.ca,
      token: opts.token,
      contentType,
    });
}

interface CrdShape {
  metadata: { name: string };
  spec: {
    group: string;
    names: { plural: string };
    versions: Array<{ name: string; served: boolean }>;
  };
}

/** Waits until every served version of each CRD answers a list. */
async function waitServed(api: Api, crds: readonly Obj[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const raw of crds) {
    const c = raw as unknown as CrdShape;
    for (const v of c.spec.versions.filter((x) => x.served)) {
      for (;;) {
        const res = await api(
          "GET",
          `/apis/${c.spec.group}/${v.name}/${c.spec.names.plural}?limit=1`,
        );
        if (res.status === 200) break;
        if (Date.now() > deadline)
          throw new Error(
            `${c.metadata.name} ${v.name} was not served in time (last answer ${res.status})`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}

/** Creates CRDs (an existing one is left as it is) and waits until they are served. */
async function createCrds(api: Api, crds: readonly Obj[], timeoutMs = 60_000): Promise<void> {
  for (const crd of crds) {
    const res = await api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    if (res.status !== 201 && res.status !== 409)
      throw new Error(
        `creating CRD ${crd.metadata?.name}: ${res.status} ${res.body.slice(0, 500)}`,
      );
  }
  await waitServed(api, crds, timeoutMs);
}

/** Installs the engines' CRDs (all three engines unless told) and waits until they are served. */
export async function installEngineCrds(opts: {
  server: string;
  ca: string | Buffer;
  token: string;
  engines?: readonly EngineName[];
}): Promise<void> {
  await createCrds(engineApi(opts), engineCrds(opts.engines));
}

/**
 * Waits until the apiserver's admission policies can resolve `paramKind` (a kind whose CRD was
 * just created). Until its REST mapper has read the new kind, a policy naming it fails every
 * request its matchConstraints match ("failed to configure policy: failed to find resource
 * referenced by paramKind") — for Gatekeeper's generated policy, every write in the cluster. So
 * a probe policy with the same paramKind, matching only ConfigMaps carrying a label of its own,
 * and a binding whose parameter does not exist (`Deny` when not found) are asked with a dry run
 * until the answer is the binding's "no params found": the policy and the binding are in force
 * and the kind resolves. The real policy is created after, and never fails the cluster's writes.
 */
async function waitParamKindResolvable(
  api: Api,
  paramKind: { apiVersion: string; kind: string },
  timeoutMs = 90_000,
): Promise<void> {
  const name = `portcullis-paramkind-probe-${Date.now().toString(36)}`;
  const label = { "portcullis.dev/paramkind-probe": name };
  await mustCreate(api, `${ADMISSION}/validatingadmissionpolicies`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      paramKind,
      failurePolicy: "Fail",
      matchConstraints: {
        objectSelector: { matchLabels: label },
        resourceRules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["configmaps"],
          },
        ],
      },
      validations: [{ expression: "true" }],
    },
  });
  try {
    await mustCreate(api, `${ADMISSION}/validatingadmissionpolicybindings`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: name,
        paramRef: { name, parameterNotFoundAction: "Deny" },
        validationActions: ["Deny"],
      },
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await api("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, labels: label },
      });
      if (res.body.includes("no params found")) return;
      if (Date.now() > deadline)
        throw new Error(
          `the apiserver's admission policies did not resolve ${paramKind.kind} in time: ${res.status} ${res.body.slice(0, 300)}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await api("DELETE", `${ADMISSION}/validatingadmissionpolicybindings/${name}`);
    await api("DELETE", `${ADMISSION}/validatingadmissionpolicies/${name}`);
  }
}

/** The owner reference controllerutil.SetControllerReference writes. */
function controllerRef(owner: { apiVersion: string; kind: string; name: string; uid: string }) {
  return { ...owner, controller: true, blockOwnerDeletion: true };
}

async function mustCreate(api: Api, p: string, body: Obj): Promise<Obj> {
  const res = await api("POST", p, body);
  if (res.status === 409) {
    const name = body.metadata?.name ?? "";
    const got = await api("GET", `${p}/${name}`);
    if (got.status === 200) return JSON.parse(got.body) as Obj;
  }
  if (res.status !== 201)
    throw new Error(
      `creating ${p} ${body.metadata?.name}: ${res.status} ${res.body.slice(0, 500)}`,
    );
  return JSON.parse(res.body) as Obj;
}

async function putStatus(
  api: Api,
  p: string,
  obj: Obj,
  status: Record<string, unknown>,
): Promise<void> {
  const res = await api("PATCH", `${p}/status`, { status }, "application/merge-patch+json");
  if (res.status !== 200)
    throw new Error(`status of ${obj.metadata?.name}: ${res.status} ${res.body.slice(0, 500)}`);
}

/** What seedGatekeeper created, by kind. */
export interface GatekeeperWorld {
  template: string;
  constraintKind: string;
  constraints: string[];
  policy: string;
  bindings: string[];
  webhookConfiguration: string;
}

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
/** The pod id Gatekeeper's status objects carry (its controller pod's name). */
const POD = "gatekeeper-controller-manager-6b4c7c9f58-x2k4v";

/**
 * Creates the demo's Gatekeeper policies (tools/engine-crds/seed/gatekeeper-policies.yaml) and
 * what Gatekeeper makes of them (seed/gatekeeper-generated.yaml and its webhook configuration),
 * with the owner references and status Gatekeeper writes. Needs the Gatekeeper CRDs installed.
 */
export async function seedGatekeeper(api: Api): Promise<GatekeeperWorld> {
  const sources = readYaml(path.join(SEED_DIR, "gatekeeper-policies.yaml"));
  const generated = readYaml(path.join(SEED_DIR, "gatekeeper-generated.yaml"));
  const [vwc] = readYaml(path.join(SEED_DIR, "gatekeeper-validating-webhook-configuration.yaml"));
  if (!vwc) throw new Error("no Gatekeeper webhook configuration in tools/engine-crds/seed");
  const templateSrc = sources.find((o) => o.kind === "ConstraintTemplate");
  if (!templateSrc) throw new Error("no ConstraintTemplate in seed/gatekeeper-policies.yaml");

  const ctPath = "/apis/templates.gatekeeper.sh/v1/constrainttemplates";
  const template = await mustCreate(api, ctPath, templateSrc);
  const tName = String(template.metadata?.name);
  // SetControllerReference takes the GVK of the object it is given: the reconciler reads the
  // template as templates.gatekeeper.sh/v1beta1.
  const ctOwner = controllerRef({
    apiVersion: "templates.gatekeeper.sh/v1beta1",
    kind: "ConstraintTemplate",
    name: tName,
    uid: String(template.metadata?.uid),
  });

  const constraintCrd = generated.find((o) => o.kind === "CustomResourceDefinition");
  if (!constraintCrd) throw new Error("no Constraint CRD in seed/gatekeeper-generated.yaml");
  const crd = {
    ...constraintCrd,
    metadata: { ...constraintCrd.metadata, ownerReferences: [ctOwner] },
  };
  await createCrds(api, [crd]);
  const constraintKind = (crd as unknown as { spec: { names: { kind: string; plural: string } } })
    .spec.names;

  const policy = generated.find((o) => o.kind === "ValidatingAdmissionPolicy");
  if (!policy) throw new Error("no ValidatingAdmissionPolicy in seed/gatekeeper-generated.yaml");
  await waitParamKindResolvable(api, {
    apiVersion: "constraints.gatekeeper.sh/v1beta1",
    kind: constraintKind.kind,
  });
  const vap = await mustCreate(api, `${ADMISSION}/validatingadmissionpolicies`, {
    ...policy,
    metadata: { ...policy.metadata, ownerReferences: [ctOwner] },
  });

  const cPath = `/apis/constraints.gatekeeper.sh/v1beta1/${constraintKind.plural}`;
  const constraints: Obj[] = [];
  for (const src of sources.filter((o) => o.apiVersion === "constraints.gatekeeper.sh/v1beta1")) {
    const c = await mustCreate(api, cPath, src);
    constraints.push(c);
  }
  const bindings: string[] = [];
  for (const b of generated.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding")) {
    const paramName = (b as unknown as { spec: { paramRef: { name: string } } }).spec.paramRef.name;
    const owner = constraints.find((c) => c.metadata?.name === paramName);
    if (!owner) throw new Error(`binding ${b.metadata?.name} names no seeded Constraint`);
    const made = await mustCreate(api, `${ADMISSION}/validatingadmissionpolicybindings`, {
      ...b,
      metadata: {
        ...b.metadata,
        ownerReferences: [
          controllerRef({
            apiVersion: "constraints.gatekeeper.sh/v1beta1",
            kind: constraintKind.kind,
            name: String(owner.metadata?.name),
            uid: String(owner.metadata?.uid),
          }),
        ],
      },
    });
    bindings.push(String(made.metadata?.name));
  }

  const scoped = {
    ...vwc,
    webhooks: (vwc.webhooks as Obj[]).map((h) => ({
      ...h,
      objectSelector: { matchLabels: { [ENGINE_DEMO_LABEL]: "true" } },
    })),
  };
  const webhookConfiguration = await mustCreate(
    api,
    `${ADMISSION}/validatingwebhookconfigurations`,
    scoped,
  );

  // Status as Gatekeeper's status controllers leave it once the template is ingested, its VAP
  // generated and the audit has run.
  const generation = Number(template.metadata?.generation ?? 1);
  await putStatus(api, `${ctPath}/${tName}`, template, {
    created: true,
    byPod: [
      {
        id: POD,
        observedGeneration: generation,
        operations: [
          "audit",
          "mutation-status",
          "mutation-webhook",
          "status",
          "webhook",
          "generate",
        ],
        templateUID: template.metadata?.uid,
        vapGenerationStatus: { state: "generated", observedGeneration: generation },
      },
    ],
  });
  for (const [i, c] of constraints.entries()) {
    await putStatus(api, `${cPath}/${String(c.metadata?.name)}`, c, {
      auditTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      totalViolations: i === 0 ? 2 : 5,
      byPod: [
        {
          id: POD,
          observedGeneration: Number(c.metadata?.generation ?? 1),
          operations: [
            "audit",
            "mutation-status",
            "mutation-webhook",
            "status",
            "webhook",
            "generate",
          ],
          constraintUID: c.metadata?.uid,
          enforced: true,
        },
      ],
    });
  }
  return {
    template: tName,
    constraintKind: constraintKind.kind,
    constraints: constraints.map((c) => String(c.metadata?.name)),
    policy: String(vap.metadata?.name),
    bindings,
    webhookConfiguration: String(webhookConfiguration.metadata?.name),
  };
}

/** Deletes what seedGatekeeper created (its Constraint CRD last but one, its template last). */
export async function removeGatekeeper(api: Api, w: GatekeeperWorld): Promise<void> {
  const del = async (p: string) => {
    const res = await api("DELETE", p);
    if (res.status !== 200 && res.status !== 202 && res.status !== 404)
      throw new Error(`deleting ${p}: ${res.status} ${res.body.slice(0, 300)}`);
  };
  await del(`${ADMISSION}/validatingwebhookconfigurations/${w.webhookConfiguration}`);
  for (const b of w.bindings) await del(`${ADMISSION}/validatingadmissionpolicybindings/${b}`);
  await del(`${ADMISSION}/validatingadmissionpolicies/${w.policy}`);
  const plural = w.constraintKind.toLowerCase();
  for (const c of w.constraints)
    await del(`/apis/constraints.gatekeeper.sh/v1beta1/${plural}/${c}`);
  await del(
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.constraints.gatekeeper.sh`,
  );
  await del(`/apis/templates.gatekeeper.sh/v1/constrainttemplates/${w.template}`);
}

/**
 * A Kyverno ClusterPolicy and the ValidatingAdmissionPolicy and binding Kyverno generates from it
 * (`cpol-<name>`, `cpol-<name>-binding`, owned by the policy and labelled managed-by kyverno), as
 * lib/admission/engines/engine-objects.ts builds them after Kyverno v1.19.1's
 * pkg/admissionpolicy/builder.go, with the policy's status.validatingadmissionpolicy as
 * pkg/controllers/admissionpolicygenerator writes it. The generated policy's rules name no real
 * resource. Needs the Kyverno CRDs installed.
 */
export async function seedKyverno(api: Api): Promise<{ policy: string; generated: string }> {
  const name = "disallow-latest-tag";
  const cpPath = "/apis/kyverno.io/v1/clusterpolicies";
  const policy = await mustCreate(api, cpPath, kyvernoClusterPolicy({ name }) as Obj);
  const uid = String(policy.metadata?.uid);
  await putStatus(api, `${cpPath}/${name}`, policy, {
    validatingadmissionpolicy: { generated: true, message: "" },
  });
  const source = { kind: "ClusterPolicy" as const, name, uid };
  const vap = await mustCreate(
    api,
    `${ADMISSION}/validatingadmissionpolicies`,
    kyvernoGeneratedPolicy(source) as Obj,
  );
  await mustCreate(
    api,
    `${ADMISSION}/validatingadmissionpolicybindings`,
    kyvernoGeneratedBinding(source) as Obj,
  );
  return { policy: name, generated: String(vap.metadata?.name) };
}
