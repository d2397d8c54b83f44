/**
 * The Helm chart with the real helm (built from tools/helm/go.mod) against the real apiserver:
 * it lints; it renders for the default, PostgreSQL, impersonation and OIDC values; every rendered
 * object is accepted by a server-side dry run in a namespace of its own; the plain manifests
 * in deploy/manifests are what the chart renders today.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../cluster/harness/stack";
import { kubeClientFor, type KubeClient } from "@/server/kube/client";
import { ensureHelm, runHelm } from "../tools/helm/helm";
import {
  CHART_DIR,
  MANIFESTS_FILE,
  renderChart,
  renderedObjects,
  renderManifests,
  type RenderedObject,
} from "./render";
import { createObject } from "./objects";

const VALUES = {
  default: [] as string[],
  postgresql: [path.join(CHART_DIR, "ci", "postgresql-values.yaml")],
  impersonation: [path.join(CHART_DIR, "ci", "impersonation-values.yaml")],
  oidc: [path.join(CHART_DIR, "ci", "oidc-values.yaml")],
  "audit-client-certificate": [path.join(CHART_DIR, "ci", "audit-client-certificate-values.yaml")],
};

let admin: KubeClient;
const namespace = `portcullis-chart-${randomBytes(3).toString("hex")}`;

beforeAll(async () => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  admin = kubeClientFor(stack.contexts.admin);
  await ensureHelm();
  await admin.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: {
      apiVersion: "v1",
      kind: "Namespace",
      // Pod Security's strictest level: the dry run warns about any pod template below it.
      metadata: {
        name: namespace,
        labels: {
          "pod-security.kubernetes.io/enforce": "restricted",
          "pod-security.kubernetes.io/warn": "restricted",
        },
      },
    },
  });
}, 1_800_000);

afterAll(async () => {
  await admin?.request({ method: "DELETE", path: `/api/v1/namespaces/${namespace}` });
});

function byKind(objects: RenderedObject[], kind: string): RenderedObject[] {
  return objects.filter((o) => o.kind === kind);
}

function deploymentOf(objects: RenderedObject[]) {
  const [d] = byKind(objects, "Deployment");
  return d as unknown as {
    spec: {
      replicas: number;
      strategy: { type: string };
      template: {
        spec: {
          securityContext: Record<string, unknown>;
          containers: Array<{
            securityContext: Record<string, unknown>;
            env: Array<{ name: string; value?: string }>;
            livenessProbe: { httpGet: { path: string } };
            readinessProbe: { httpGet: { path: string } };
            volumeMounts: Array<{ name: string; mountPath: string }>;
          }>;
          volumes: Array<{
            name: string;
            secret?: { secretName: string; items?: Array<{ key: string; path: string }> };
            configMap?: { name: string; items?: Array<{ key: string; path: string }> };
          }>;
        };
      };
    };
  };
}

describe("helm lint", () => {
  for (const [name, files] of Object.entries(VALUES)) {
    it(`passes with the ${name} values`, async () => {
      const home = mkdtempSync(path.join(os.tmpdir(), "portcullis-helm-"));
      try {
        const r = await runHelm(
          ["lint", "--strict", CHART_DIR, ...files.flatMap((f) => ["--values", f])],
          home,
        );
        expect(r.stderr + r.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
        expect(r.code).toBe(0);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});

describe("helm template", () => {
  it("renders a hardened Deployment with SQLite on one replica by default, even when asked for three", async () => {
    const objects = renderedObjects(await renderChart({ namespace, set: ["replicaCount=3"] }));
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "ClusterRole",
      "ClusterRole",
      "ClusterRoleBinding",
      "ConfigMap",
      "Deployment",
      "PersistentVolumeClaim",
      "Secret",
      "Secret",
      "Service",
      "ServiceAccount",
    ]);
    const d = deploymentOf(objects);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.strategy.type).toBe("Recreate");
    const pod = d.spec.template.spec;
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    const [c] = pod.containers;
    expect(c?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(c?.livenessProbe.httpGet.path).toBe("/api/health");
    expect(c?.readinessProbe.httpGet.path).toBe("/api/health");
    expect(c?.volumeMounts.map((m) => m.mountPath)).toEqual(
      expect.arrayContaining(["/tmp", "/app/.next/cache", "/var/lib/portcullis"]),
    );
    const env = Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value]));
    expect(env.PORTCULLIS_MODE).toBe("shared");
    expect(env.PORTCULLIS_HOST).toBe("0.0.0.0");
    expect(env.PORTCULLIS_DATA_DIR).toBe("/var/lib/portcullis");
    expect("PORTCULLIS_IMPERSONATE" in env).toBe(false);
    expect("DATABASE_URL" in env).toBe(false);
  });

  it("renders several replicas on PostgreSQL, with no volume claim", async () => {
    const objects = renderedObjects(
      await renderChart({ namespace, valuesFiles: VALUES.postgresql }),
    );
    expect(byKind(objects, "PersistentVolumeClaim")).toEqual([]);
    expect(byKind(objects, "Ingress")).toHaveLength(1);
    const d = deploymentOf(objects);
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.strategy.type).toBe("RollingUpdate");
    const env = d.spec.template.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "DATABASE_URL")).toMatchObject({
      valueFrom: { secretKeyRef: { name: "portcullis-postgresql", key: "DATABASE_URL" } },
    });
    expect(env.find((e) => e.name === "PORTCULLIS_ALLOWED_HOSTS")?.value).toBe(
      "portcullis.example.org",
    );
  });

  it("refuses PostgreSQL without the Secret that holds its connection string", async () => {
    await expect(
      renderChart({ namespace, set: ["decisions.postgresql.enabled=true"] }),
    ).rejects.toThrow(/decisions\.postgresql\.existingSecret/);
  });

  it("turns impersonation on only when asked", async () => {
    const objects = renderedObjects(
      await renderChart({ namespace, valuesFiles: VALUES.impersonation }),
    );
    const env = deploymentOf(objects).spec.template.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "PORTCULLIS_IMPERSONATE")?.value).toBe("1");
  });

  it("wires OIDC sign-in to the issuer, the client secret's Secret and the CA's ConfigMap", async () => {
    const objects = renderedObjects(await renderChart({ namespace, valuesFiles: VALUES.oidc }));
    const pod = deploymentOf(objects).spec.template.spec;
    const [c] = pod.containers;
    const env = Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      PORTCULLIS_OIDC_ISSUER_URL: "https://dex.example.org/dex",
      PORTCULLIS_OIDC_CLIENT_ID: "portcullis",
      PORTCULLIS_OIDC_REDIRECT_URL: "https://portcullis.example.org/sign-in/oidc",
      PORTCULLIS_OIDC_SCOPES: "openid email groups",
      PORTCULLIS_OIDC_CLIENT_SECRET_FILE: "/var/run/secrets/portcullis/oidc/client-secret",
      PORTCULLIS_OIDC_CA_FILE: "/etc/portcullis/oidc-ca/ca.crt",
    });
    const mounts = Object.fromEntries((c?.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    expect(mounts["oidc-client-secret"]).toBe("/var/run/secrets/portcullis/oidc");
    expect(mounts["oidc-ca"]).toBe("/etc/portcullis/oidc-ca");
    const volumes = Object.fromEntries(pod.volumes.map((v) => [v.name, v]));
    expect(volumes["oidc-client-secret"]?.secret).toMatchObject({
      secretName: "portcullis-oidc",
      items: [{ key: "client-secret", path: "client-secret" }],
    });
    expect(volumes["oidc-ca"]?.configMap).toMatchObject({
      name: "portcullis-oidc-ca",
      items: [{ key: "ca.crt", path: "ca.crt" }],
    });
    // Off by default: no OIDC variable at all.
    const plain = deploymentOf(renderedObjects(await renderChart({ namespace })));
    const names = (plain.spec.template.spec.containers[0]?.env ?? []).map((e) => e.name);
    expect(names.filter((n) => n.startsWith("PORTCULLIS_OIDC_"))).toEqual([]);
    // An issuer without a client id, or without a page to return to, is refused.
    await expect(
      renderChart({ namespace, set: ["oidc.issuerUrl=https://dex.example.org"] }),
    ).rejects.toThrow(/oidc\.clientId/);
    await expect(
      renderChart({
        namespace,
        set: ["oidc.issuerUrl=https://dex.example.org", "oidc.clientId=portcullis"],
      }),
    ).rejects.toThrow(/oidc\.redirectUrl/);
  });

  it("renders the apiserver's audit policy as the local control plane runs it, and a kubeconfig without the token", async () => {
    const objects = renderedObjects(await renderChart({ namespace }));
    const [cm] = byKind(objects, "ConfigMap") as unknown as [{ data: Record<string, string> }];
    expect(cm.data["audit-policy.yaml"]).toBe(
      readFileSync(path.join(CHART_DIR, "files", "audit-policy.yaml"), "utf8"),
    );
    const kubeconfig = cm.data["audit-webhook.kubeconfig"] ?? "";
    expect(kubeconfig).toContain('tokenFile: "/etc/kubernetes/portcullis-audit.token"');
    expect(kubeconfig).not.toMatch(/\btoken:/);
  });

  it("serves the audit sink's TLS listener from the Secret on its own Service port when asked, and the apiserver's kubeconfig names a client certificate", async () => {
    const objects = renderedObjects(
      await renderChart({ namespace, valuesFiles: VALUES["audit-client-certificate"] }),
    );
    const pod = deploymentOf(objects).spec.template.spec;
    const [c] = pod.containers;
    const env = Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      PORTCULLIS_AUDIT_TLS_LISTEN: "0.0.0.0:8443",
      PORTCULLIS_AUDIT_TLS_CERT_FILE: "/var/run/secrets/portcullis/audit-tls/tls.crt",
      PORTCULLIS_AUDIT_TLS_KEY_FILE: "/var/run/secrets/portcullis/audit-tls/tls.key",
      PORTCULLIS_AUDIT_CLIENT_CA_FILE: "/var/run/secrets/portcullis/audit-tls/client-ca.crt",
      PORTCULLIS_AUDIT_CLIENT_NAMES: "kube-apiserver-audit",
    });
    const mounts = Object.fromEntries((c?.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    expect(mounts["audit-tls"]).toBe("/var/run/secrets/portcullis/audit-tls");
    const volume = pod.volumes.find((v) => v.name === "audit-tls");
    expect(volume?.secret).toMatchObject({
      secretName: "portcullis-audit-tls",
      items: [
        { key: "tls.crt", path: "tls.crt" },
        { key: "tls.key", path: "tls.key" },
        { key: "ca.crt", path: "client-ca.crt" },
      ],
    });
    const [service] = byKind(objects, "Service") as unknown as [
      { spec: { type: string; ports: Array<{ name: string; port: number; targetPort: string }> } },
    ];
    expect(service.spec.type).toBe("NodePort");
    expect(service.spec.ports).toContainEqual(
      expect.objectContaining({ name: "audit-tls", port: 8443, targetPort: "audit-tls" }),
    );
    const [cm] = byKind(objects, "ConfigMap") as unknown as [{ data: Record<string, string> }];
    const kubeconfig = cm.data["audit-webhook.kubeconfig"] ?? "";
    expect(kubeconfig).toContain('server: "https://203.0.113.10:30443/api/audit"');
    expect(kubeconfig).toContain(
      'client-certificate: "/etc/kubernetes/portcullis-audit-client.crt"',
    );
    expect(kubeconfig).toContain('client-key: "/etc/kubernetes/portcullis-audit-client.key"');
    expect(kubeconfig).not.toMatch(/token/i);
    // Off by default: no listener variable, no port, the token file.
    const plain = renderedObjects(await renderChart({ namespace }));
    const names = (deploymentOf(plain).spec.template.spec.containers[0]?.env ?? []).map(
      (e) => e.name,
    );
    expect(names.filter((n) => /^PORTCULLIS_AUDIT_(TLS|CLIENT)_/.test(n))).toEqual([]);
    expect(JSON.stringify(byKind(plain, "Service"))).not.toContain("audit-tls");
    // Without its Secret, or without the address the apiserver reaches it at, it is refused.
    await expect(
      renderChart({
        namespace,
        set: ["audit.clientCertificate.enabled=true", "audit.sinkUrl=https://x:30443/api/audit"],
      }),
    ).rejects.toThrow(/audit\.clientCertificate\.existingSecret/);
    await expect(
      renderChart({
        namespace,
        set: ["audit.clientCertificate.enabled=true", "audit.clientCertificate.existingSecret=s"],
      }),
    ).rejects.toThrow(/audit\.sinkUrl must name/);
  });

  it("tells the installer how to grant decisions and wire the apiserver, and that SQLite kept one replica", async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "portcullis-helm-"));
    try {
      const r = await runHelm(
        [
          "install",
          "portcullis",
          CHART_DIR,
          "--namespace",
          namespace,
          "--dry-run=client",
          "--set",
          "replicaCount=2",
        ],
        home,
      );
      expect(r.code, r.stderr).toBe(0);
      const notes = r.stdout.slice(r.stdout.indexOf("NOTES:"));
      expect(notes).toContain("--clusterrole=portcullis-decisions-reader");
      expect(notes).toContain(
        "--audit-webhook-config-file=/etc/kubernetes/portcullis-audit-webhook.kubeconfig",
      );
      expect(notes).toContain(`get secret portcullis-audit-token`);
      expect(notes).toContain("replicaCount 2 was reduced to 1");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("keeps deploy/manifests in step with the chart (regenerate: npx tsx deploy/render.ts)", async () => {
    expect(readFileSync(MANIFESTS_FILE, "utf8")).toBe(await renderManifests());
  });
});

describe("the rendered objects on the real apiserver", () => {
  for (const [name, files] of Object.entries(VALUES)) {
    it(`accepts every object of the ${name} rendering in a server-side dry run, with no Pod Security warning at the restricted level`, async () => {
      const objects = renderedObjects(
        await renderChart({ release: `dry-${name}`, namespace, valuesFiles: files }),
      );
      expect(objects.length).toBeGreaterThan(8);
      for (const o of objects) {
        const { body, warnings } = await createObject(admin, o, { dryRun: true });
        expect(body.metadata?.name, `${o.kind} ${o.metadata.name}`).toBe(o.metadata.name);
        expect(warnings, `${o.kind} ${o.metadata.name}`).toEqual([]);
      }
      // Nothing was stored: the dry run's Deployment is not there.
      const list = await admin.request<{ items: unknown[] }>({
        path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
      });
      expect(list.items).toEqual([]);
    });
  }
});
