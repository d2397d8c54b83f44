/**
 * The health report's view of a hook's Service and caBundle set against what the real apiserver
 * does with the same objects. Each hook is fail-closed and intercepts only this file's
 * namespace; a dry-run create asks the apiserver whether it can call the hook:
 * - a Service without the port the hook calls: refused (no service port … found), and the
 *   report must say so even though the Service has ready endpoints;
 * - an ExternalName Service: no endpoints by design; the apiserver calls the name (ClusterIP
 *   routing) or refuses the type (endpoint routing, this harness), never for want of endpoints;
 *   probed from here, it is dialled at its external name and verified for the Service's own name,
 *   as the apiserver's webhook client does;
 * - a caBundle holding an expired CA beside the valid one that signs the serving certificate (a
 *   CA being rotated): the apiserver calls the hook, so the report must not call it expired;
 * - a caBundle whose only CA is not valid yet: the apiserver refuses, and the report says so
 *   from the bundle alone where the backend cannot be probed from here;
 * - a Service whose ready endpoints sit on an EndpointSlice port named unlike the Service port:
 *   the apiserver finds no endpoints available, so the report (and lint) must not count them;
 * - a caBundle with an unparseable CERTIFICATE block beside the CA: the apiserver skips the block
 *   and calls the hook; with the unparseable block alone it fails every call.
 * Lint rule L7/L8, run on the same live objects, must judge as the report does.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCa } from "../../cluster/certs";
import { httpsRequest } from "../../cluster/https-json";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import type { HealthRow } from "@/lib/api/health";
import { KubeClient } from "@/server/kube/client";
import { lint } from "@/lib/admission/lint/lint";
import type { V1EndpointSlice, V1Service, V1ValidatingWebhookConfiguration } from "@/lib/k8s/types";
import { admissionHealth } from "./report";

const id = `hb${Date.now().toString(36)}`;
const ns = `health-${id}`;
const cfg = `health-${id}`;
let stack: StackInfo;
let ca: Buffer;
let dir: string;
let rotated: WebhookServer;
let future: WebhookServer;
let externalUp: WebhookServer;
let client: KubeClient;

function kube(method: string, p: string, body?: unknown) {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

/** A self-signed CA valid from `start` to `end` (YYYYMMDDHHMMSSZ), made with `openssl ca`. */
function datedCa(name: string, start: string, end: string): { certFile: string; keyFile: string } {
  const sub = path.join(dir, name);
  execFileSync("mkdir", ["-p", sub]);
  writeFileSync(path.join(sub, "index.txt"), "");
  writeFileSync(path.join(sub, "serial"), "01\n");
  writeFileSync(
    path.join(sub, "ca.cnf"),
    [
      "[req]",
      "distinguished_name=dn",
      "[dn]",
      "[ca]",
      "default_ca=d",
      "[d]",
      "database=index.txt",
      "new_certs_dir=.",
      "serial=serial",
      "default_md=sha256",
      "policy=p",
      "unique_subject=no",
      "[p]",
      "commonName=supplied",
      "[ext]",
      "basicConstraints=critical,CA:TRUE",
      "keyUsage=critical,keyCertSign,cRLSign",
      "",
    ].join("\n"),
  );
  const run = (args: string[]) =>
    execFileSync("openssl", args, { cwd: sub, stdio: ["ignore", "ignore", "pipe"] });
  run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  run([
    "req",
    "-new",
    "-key",
    "ca.key",
    "-subj",
    `/CN=${name}`,
    "-config",
    "ca.cnf",
    "-out",
    "ca.csr",
  ]);
  run([
    "ca",
    "-batch",
    "-selfsign",
    "-keyfile",
    "ca.key",
    "-in",
    "ca.csr",
    "-startdate",
    start,
    "-enddate",
    end,
    "-config",
    "ca.cnf",
    "-extensions",
    "ext",
    "-notext",
    "-out",
    "ca.crt",
  ]);
  return { certFile: path.join(sub, "ca.crt"), keyFile: path.join(sub, "ca.key") };
}

function hook(
  name: string,
  clientConfig: Record<string, unknown>,
  operation: string,
  resource = "configmaps",
) {
  return {
    name: `${name}.${id}.portcullis.test`,
    clientConfig,
    rules: [
      { operations: [operation], apiGroups: [""], apiVersions: ["v1"], resources: [resource] },
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    failurePolicy: "Fail",
    timeoutSeconds: 3,
  };
}

/** A dry-run write of a ConfigMap, which only the hook for `operation` intercepts. */
async function dryRun(operation: "CREATE" | "UPDATE" | "DELETE") {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  if (operation === "CREATE")
    return kube("POST", `${base}?dryRun=All`, { metadata: { name: "probe" } });
  if (operation === "UPDATE")
    return kube("PUT", `${base}/existing?dryRun=All`, {
      metadata: { name: "existing" },
      data: { a: "b" },
    });
  return kube("DELETE", `${base}/existing?dryRun=All`);
}

/** A dry-run create of a `resource` (secrets, serviceaccounts, podtemplates) in the namespace. */
function dryCreate(resource: string) {
  const body =
    resource === "podtemplates"
      ? {
          metadata: { name: "probe" },
          template: { spec: { containers: [{ name: "c", image: "x" }] } },
        }
      : { metadata: { name: "probe" } };
  return kube("POST", `/api/v1/namespaces/${ns}/${resource}?dryRun=All`, body);
}

// Base64 but no certificate: client-go's AppendCertsFromPEM skips such a block.
const GARBAGE_BLOCK =
  "-----BEGIN CERTIFICATE-----\nZ2FyYmFnZSBub3QgYSBjZXJ0aWZpY2F0ZQ==\n-----END CERTIFICATE-----\n";

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-health-backends-"));
  const kc = new KubeConfig();
  kc.loadFromFile(stack.kubeconfig);
  kc.setCurrentContext(stack.contexts.admin);
  client = new KubeClient(stack.contexts.admin, kc);

  const expired = datedCa("expired-ca", "20200101000000Z", "20200201000000Z");
  const current = createCa(dir, "current-ca", 300);
  const notYet = datedCa("future-ca", "20400101000000Z", "20410101000000Z");
  rotated = await startWebhookServer(current);
  future = await startWebhookServer(notYet);
  // Serving the name the apiserver verifies for a Service-backed hook, at the name an
  // ExternalName Service gives (localhost): what the apiserver dials with ClusterIP routing.
  externalUp = await startWebhookServer(current, { hosts: [`external-up.${ns}.svc`] });
  rotated.program("rotated", { type: "allow" });
  rotated.program("ca-mixed", { type: "allow" });
  rotated.program("ca-garbage", { type: "allow" });
  future.program("future", { type: "allow" });
  const pem = (f: string) => readFileSync(f, "utf8");
  const rotatedBundle = Buffer.from(pem(expired.certFile) + pem(current.certFile)).toString(
    "base64",
  );
  const futureBundle = Buffer.from(pem(notYet.certFile)).toString("base64");
  const mixedBundle = Buffer.from(GARBAGE_BLOCK + pem(current.certFile)).toString("base64");
  const garbageBundle = Buffer.from(GARBAGE_BLOCK).toString("base64");

  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  expect(
    (
      await kube("POST", `/api/v1/namespaces/${ns}/configmaps`, {
        metadata: { name: "existing" },
      })
    ).status,
  ).toBe(201);
  // A Service with a ready endpoint on port 443 only.
  for (const body of [
    { metadata: { name: "portless" }, spec: { ports: [{ name: "https", port: 443 }] } },
    {
      metadata: { name: "external" },
      spec: { type: "ExternalName", externalName: "localhost", ports: [{ port: 443 }] },
    },
    {
      metadata: { name: "external-up" },
      spec: { type: "ExternalName", externalName: "localhost" },
    },
    {
      metadata: { name: "named" },
      spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] },
    },
  ]) {
    expect((await kube("POST", `/api/v1/namespaces/${ns}/services`, body)).status).toBe(201);
  }
  expect(
    (
      await kube("POST", `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
        metadata: { name: "portless-1", labels: { "kubernetes.io/service-name": "portless" } },
        addressType: "IPv4",
        ports: [{ name: "https", port: 8443 }],
        endpoints: [{ addresses: ["10.255.0.1"], conditions: { ready: true } }],
      })
    ).status,
  ).toBe(201);
  // Ready, but on a port named "web": not the Service port "https".
  expect(
    (
      await kube("POST", `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
        metadata: { name: "named-1", labels: { "kubernetes.io/service-name": "named" } },
        addressType: "IPv4",
        ports: [{ name: "web", port: 8443 }],
        endpoints: [{ addresses: ["10.255.0.1"], conditions: { ready: true } }],
      })
    ).status,
  ).toBe(201);
  const created = await kube(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: cfg },
      webhooks: [
        hook("wrong-port", { service: { namespace: ns, name: "portless", port: 444 } }, "CREATE"),
        hook("rotated", { url: rotated.url("rotated"), caBundle: rotatedBundle }, "UPDATE"),
        hook("future", { url: future.url("future"), caBundle: futureBundle }, "DELETE"),
        // Never called (CONNECT on configmaps does not exist): judged from the bundle alone.
        hook(
          "future-service",
          { service: { namespace: ns, name: "portless", port: 443 }, caBundle: futureBundle },
          "CONNECT",
        ),
        hook(
          "external",
          { service: { namespace: ns, name: "external", port: 443 }, caBundle: rotatedBundle },
          "CONNECT",
        ),
        hook(
          "external-up",
          {
            service: {
              namespace: ns,
              name: "external-up",
              port: Number(new URL(externalUp.url("x")).port),
            },
            caBundle: Buffer.from(pem(current.certFile)).toString("base64"),
          },
          "CONNECT",
        ),
        hook(
          "port-name",
          { service: { namespace: ns, name: "named", port: 443 } },
          "CREATE",
          "secrets",
        ),
        hook(
          "ca-mixed",
          { url: rotated.url("ca-mixed"), caBundle: mixedBundle },
          "CREATE",
          "serviceaccounts",
        ),
        hook(
          "ca-garbage",
          { url: rotated.url("ca-garbage"), caBundle: garbageBundle },
          "CREATE",
          "podtemplates",
        ),
      ],
    },
  );
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await kube(
    "DELETE",
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${cfg}`,
  );
  await kube("DELETE", `/api/v1/namespaces/${ns}`);
  await rotated?.close();
  await future?.close();
  await externalUp?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("judges a Service's ports and type, and a caBundle's validity, as the apiserver does", async () => {
  // The apiserver's own verdicts.
  const wrongPort = await dryRun("CREATE");
  expect(wrongPort.status).toBe(500);
  expect(wrongPort.body).toContain("no service port 444 found");
  expect((await dryRun("UPDATE")).status).toBe(200);
  expect(rotated.calls("rotated").length).toBeGreaterThan(0);
  const notYetValid = await dryRun("DELETE");
  expect(notYetValid.status).toBe(500);
  expect(notYetValid.body).toContain("not yet valid");

  const report = await admissionHealth(stack.contexts.admin, client, AbortSignal.timeout(30_000), {
    source: "ValidatingWebhookConfiguration",
    configuration: cfg,
  });
  const row = (name: string): HealthRow => {
    const r = report.rows.find((x) => x.hook === `${name}.${id}.portcullis.test`);
    expect(r, name).toBeDefined();
    return r as HealthRow;
  };
  const codes = (name: string) => row(name).reasons.map((r) => `${r.severity}:${r.code}`);

  expect(codes("wrong-port")).toContain("critical:service-port-missing");
  expect(row("wrong-port").severity).toBe("critical");

  expect(codes("rotated")).not.toContain("critical:ca-expired");
  expect(codes("rotated")).toContain("info:ca-unusable-certificates");
  expect(row("rotated").severity).toBe("info");
  expect(row("rotated").caDaysLeft).toBeGreaterThan(200);

  expect(codes("future")).toContain("critical:ca-not-yet-valid");
  expect(row("future-service").probe.status).toBe("unreachable-from-here");
  expect(codes("future-service")).toContain("critical:ca-not-yet-valid");

  expect(codes("external")).toContain("medium:external-name-service");
  expect(codes("external")).not.toContain("critical:no-ready-endpoints");
  // Probed where the apiserver dials it (the ExternalName), verifying the Service's own name.
  const up = row("external-up").probe;
  expect(up.status).toBe("ok");
  expect(up.status === "ok" && up.served.subjectAltName).toContain(`DNS:external-up.${ns}.svc`);
  expect(codes("external-up")).toEqual(["medium:external-name-service"]);
});

it("judges a Service's endpoints by port name and a caBundle as client-go loads it, in the report and in lint", async () => {
  // The apiserver's own verdicts.
  const portName = await dryCreate("secrets");
  expect(portName.status).toBe(500);
  expect(portName.body).toContain('no endpoints available for service \\"named\\"');
  expect((await dryCreate("serviceaccounts")).status).toBe(201);
  expect(rotated.calls("ca-mixed").length).toBeGreaterThan(0);
  const garbage = await dryCreate("podtemplates");
  expect(garbage.status).toBe(500);
  expect(garbage.body).toContain("unable to load root certificates");
  expect(rotated.calls("ca-garbage")).toHaveLength(0);

  const report = await admissionHealth(stack.contexts.admin, client, AbortSignal.timeout(30_000), {
    source: "ValidatingWebhookConfiguration",
    configuration: cfg,
  });
  const codes = (name: string) =>
    (report.rows.find((x) => x.hook === `${name}.${id}.portcullis.test`)?.reasons ?? []).map(
      (r) => `${r.severity}:${r.code}`,
    );
  expect(codes("port-name")).toContain("critical:no-ready-endpoints");
  expect(codes("ca-mixed")).not.toContain("high:ca-unreadable");
  expect(codes("ca-mixed")).toEqual(["info:ca-skipped-blocks"]);
  expect(codes("ca-garbage")).toContain("critical:ca-unreadable");

  // Lint on the same live objects.
  const list = async <T>(p: string) => JSON.parse((await kube("GET", p)).body).items as T[];
  const configuration = JSON.parse(
    (
      await kube(
        "GET",
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${cfg}`,
      )
    ).body,
  ) as V1ValidatingWebhookConfiguration;
  const findings = lint({
    snapshot: { validatingWebhookConfigurations: [configuration] },
    services: await list<V1Service>(`/api/v1/namespaces/${ns}/services`),
    endpointSlices: await list<V1EndpointSlice>(
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
    ),
  });
  const about = (rule: string, name: string) =>
    findings
      .filter(
        (f) => f.id === rule && f.objects.some((o) => o.hook === `${name}.${id}.portcullis.test`),
      )
      .map((f) => `${f.severity}:${f.title}`);
  expect(about("L7", "external")).toEqual(["medium:ExternalName webhook service"]);
  expect(about("L7", "port-name")).toEqual(["critical:Webhook service has no ready endpoints"]);
  expect(about("L7", "wrong-port")).toEqual(["critical:Webhook service port missing"]);
  expect(about("L8", "ca-mixed").map((f) => f.split(":")[0])).toEqual(["info"]);
  expect(about("L8", "ca-garbage").map((f) => f.split(":")[0])).toEqual(["critical"]);
});
