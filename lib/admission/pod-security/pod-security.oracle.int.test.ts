/**
 * PodSecurity as pod-security/admission.ts predicts it, beside the real apiserver's PodSecurity
 * admission plugin:
 * - every pod of the Pod Security Standards' conformance fixtures, created (dry run) in
 *   namespaces labelled with different enforce and warn standards and versions: refused exactly
 *   where the prediction says so, with the apiserver's status and message byte for byte, and with
 *   exactly the predicted warnings otherwise;
 * - the same pods as the template of a Deployment: never refused, the same warnings;
 * - namespaces whose Pod Security labels do not parse: refused with the predicted 422 message.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack, stackMinor } from "../../../cluster/harness/stack";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import { makeRequest } from "@/lib/admission/model/request";
import type { JsonObject } from "@/lib/admission/validate/json";
import { podSecurityVerdict, sameMessage } from "./admission";

/** The stack's minor (npm run test:versions runs older ones): its checks are `latest`. */
const STACK_MINOR = Number(stackMinor().slice(2));
import standards from "./testdata/standards.json";

const id = `pss${Date.now().toString(36)}`;

/** Namespaces and their Pod Security labels. */
const NAMESPACES: Record<string, Record<string, string>> = {
  [`${id}-restricted`]: { "pod-security.kubernetes.io/enforce": "restricted" },
  [`${id}-baseline-warn`]: {
    "pod-security.kubernetes.io/enforce": "baseline",
    "pod-security.kubernetes.io/warn": "restricted",
    "pod-security.kubernetes.io/warn-version": "v1.24",
  },
  [`${id}-restricted-v122`]: {
    "pod-security.kubernetes.io/enforce": "restricted",
    "pod-security.kubernetes.io/enforce-version": "v1.22",
  },
  [`${id}-baseline-v10`]: {
    "pod-security.kubernetes.io/enforce": "baseline",
    "pod-security.kubernetes.io/enforce-version": "v1.0",
    "pod-security.kubernetes.io/audit": "restricted",
  },
  [`${id}-warn-only`]: { "pod-security.kubernetes.io/warn": "baseline" },
};

const docs = (standards as unknown as { docs: JsonObject[] }).docs;

let admin: AdminKube;

beforeAll(async () => {
  admin = adminKube(readStack());
  for (const [name, labels] of Object.entries(NAMESPACES))
    await admin.kubeOk("POST", "/api/v1/namespaces", { metadata: { name, labels } });
});

afterAll(async () => {
  for (const name of Object.keys(NAMESPACES))
    await admin?.kube("DELETE", `/api/v1/namespaces/${name}`);
});

/** The texts of a response's `Warning: 299 - "…"` headers. */
function warningsOf(headers: Record<string, string | string[] | undefined>): string[] {
  const raw = headers["warning"];
  const all = Array.isArray(raw) ? raw.join(", ") : (raw ?? "");
  return [...all.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) =>
    (m[1] as string).replace(/\\(.)/g, "$1"),
  );
}

interface Outcome {
  status: number;
  message?: string;
  warnings: string[];
}

async function dryRun(path: string, body: JsonObject): Promise<Outcome> {
  const res = await admin.kube("POST", `${path}?dryRun=All`, body);
  const parsed = JSON.parse(res.body) as { message?: string };
  return {
    status: res.status,
    message: res.status >= 300 ? parsed.message : undefined,
    warnings: warningsOf(res.headers),
  };
}

/** The pods' own warnings only (the apiserver adds others, e.g. for deprecated fields). */
const podSecurityWarnings = (ws: string[]) => ws.filter((w) => w.includes("PodSecurity"));

test("every conformance pod in every namespace: the apiserver's verdict, message and warnings", async () => {
  let refused = 0;
  let warned = 0;
  let compared = 0;
  const mismatches: string[] = [];
  const invalid = new Set<string>();
  for (const [ns, labels] of Object.entries(NAMESPACES)) {
    for (const doc of docs) {
      const fixtureMeta = (doc["metadata"] ?? {}) as JsonObject;
      // (Some fixture names hold "_", which no object name may.)
      const meta = { ...fixtureMeta, name: String(fixtureMeta["name"]).replaceAll("_", "-") };
      // Half the pods without a name (generateName): the message names none then.
      const named = compared % 2 === 0;
      const metadata = named
        ? { ...meta, namespace: ns }
        : { ...meta, name: undefined, generateName: `${String(meta["name"])}-`, namespace: ns };
      const pod = { ...doc, metadata } as JsonObject;
      const got = await dryRun(`/api/v1/namespaces/${ns}/pods`, pod);
      // Refused by object validation before admission (fields this cluster does not accept).
      if (got.status === 422 || got.status === 400) {
        invalid.add(`${got.status} ${got.message ?? ""}`.slice(0, 160));
        continue;
      }
      compared++;
      const v = podSecurityVerdict(
        makeRequest({
          resource: "pods",
          operation: "CREATE",
          namespace: ns,
          name: named ? (meta["name"] as string) : undefined,
          object: pod,
          kind: { kind: "Pod" },
        }),
        labels,
        undefined,
        STACK_MINOR,
      );
      const want: Outcome = v?.rejection
        ? { status: v.rejection.status, message: v.rejection.message, warnings: [] }
        : { status: 201, warnings: v?.warnings ?? [] };
      const seen = { ...got, warnings: podSecurityWarnings(got.warnings) };
      // A generated name's random characters are the only part not predicted.
      if (want.message && seen.message && sameMessage(want.message, seen.message))
        seen.message = want.message;
      if (JSON.stringify(seen) !== JSON.stringify(want))
        mismatches.push(
          `${ns} ${String(meta["name"])}: want ${JSON.stringify(want)} got ${JSON.stringify(seen)}`,
        );
      if (got.status === 403) refused++;
      if (seen.warnings.length > 0) warned++;
    }
  }
  expect(mismatches.slice(0, 10)).toEqual([]);
  console.info(
    `pod security oracle: ${compared} compared, ${refused} refused, ${warned} warned; not admitted: ${[...invalid].slice(0, 5).join(" | ")}`,
  );
  expect(compared).toBeGreaterThan(1700);
  expect(refused).toBeGreaterThan(300);
  expect(warned).toBeGreaterThan(200);
}, 600_000);

test("the same pods as a Deployment's template: warnings as predicted, never refused", async () => {
  const ns = `${id}-baseline-warn`;
  const labels = NAMESPACES[ns] as Record<string, string>;
  let warned = 0;
  const mismatches: string[] = [];
  for (const doc of docs.slice(0, 120)) {
    const meta = (doc["metadata"] ?? {}) as JsonObject;
    const name = `d-${String(meta["name"]).replaceAll("_", "-").slice(0, 50)}`;
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: ns },
      spec: {
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: doc["spec"] },
      },
    } as JsonObject;
    const got = await dryRun(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment);
    if (got.status === 422 || got.status === 400) continue;
    const v = podSecurityVerdict(
      makeRequest({
        group: "apps",
        resource: "deployments",
        operation: "CREATE",
        namespace: ns,
        name,
        object: deployment,
        kind: { kind: "Deployment" },
      }),
      labels,
      undefined,
      STACK_MINOR,
    );
    expect(v?.rejection).toBeUndefined();
    const seen = podSecurityWarnings(got.warnings);
    if (got.status !== 201 || JSON.stringify(seen) !== JSON.stringify(v?.warnings ?? []))
      mismatches.push(
        `${name}: want ${JSON.stringify(v?.warnings)} got ${got.status} ${JSON.stringify(seen)}`,
      );
    if (seen.length > 0) warned++;
  }
  expect(mismatches.slice(0, 10)).toEqual([]);
  expect(warned).toBeGreaterThan(30);
}, 300_000);

test("namespaces whose Pod Security labels do not parse: the predicted 422", async () => {
  const cases: Array<Record<string, string>> = [
    { "pod-security.kubernetes.io/enforce": "strict" },
    { "pod-security.kubernetes.io/enforce-version": "1.30" },
    {
      "pod-security.kubernetes.io/warn": "none",
      "pod-security.kubernetes.io/audit-version": "v2.0",
    },
    {
      "pod-security.kubernetes.io/audit": "restricted",
      "pod-security.kubernetes.io/warn-version": "latest",
    },
  ];
  for (const [i, labels] of cases.entries()) {
    const name = `${id}-bad-${i}`;
    const body = { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } } as JsonObject;
    const got = await dryRun("/api/v1/namespaces", body);
    const v = podSecurityVerdict(
      makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        name,
        object: body,
        kind: { kind: "Namespace" },
      }),
      undefined,
      undefined,
      STACK_MINOR,
    );
    expect({ status: got.status, message: got.message }).toEqual(
      v?.rejection
        ? { status: v.rejection.status, message: v.rejection.message }
        : { status: 201, message: undefined },
    );
  }
});
