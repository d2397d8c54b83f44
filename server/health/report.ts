import "server-only";
import {
  assessHook,
  assessPolicy,
  caFactsOf,
  SEVERITY_RANK,
  type CaFacts,
  type BackendFacts,
  type ProbeResult,
} from "@/lib/admission/health/health";
import {
  policyKey,
  webhookKey,
  type PolicyKind,
  type WebhookMetrics,
} from "@/lib/admission/health/metrics";
import { KubeApiError } from "@/lib/k8s/errors";
import {
  manifestOriginKey,
  type ManifestKind,
  type ManifestOrigin,
} from "@/lib/admission/model/manifests";
import type { ManifestObjects } from "@/lib/admission/model/snapshot";
import type { AdmissionregistrationV1WebhookClientConfig } from "@/lib/k8s/types";
import type { HealthFilter, HealthReport, HealthRow, PolicyHealthRow } from "@/lib/api/health";
import { backendOf } from "@/server/kube/backends";
import { listCollection } from "@/server/kube/list-collection";
import { admissionApis } from "@/server/kube/discovery";
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { KubeClient } from "@/server/kube/client";
import { decodeCaBundle } from "@/server/kube/x509";
import { summarizeCalls } from "@/lib/traces/summary";
import { callsOf, receiverStatus } from "@/server/traces/store";
import { admissionMetrics, type MetricsView } from "./scraper";
import { probeTls } from "./probe";

interface HookLike {
  name?: string;
  failurePolicy?: string;
  timeoutSeconds?: number;
  clientConfig?: AdmissionregistrationV1WebhookClientConfig;
}

interface ConfigLike {
  metadata?: { name?: string };
  webhooks?: HookLike[];
}

interface CrdLike {
  metadata?: { name?: string };
  spec?: {
    conversion?: {
      strategy?: string;
      webhook?: { clientConfig?: AdmissionregistrationV1WebhookClientConfig };
    };
  };
}

const summary = (m: WebhookMetrics | undefined) =>
  m && {
    calls: m.calls,
    rejected: m.rejected,
    failOpen: m.failOpen,
    errors:
      (m.rejections.calling_webhook_error ?? 0) + (m.rejections.apiserver_internal_error ?? 0),
  };

/** Backend facts, the probe target and a one-line description of a clientConfig. */
async function backendAndProbe(
  client: KubeClient,
  cc: AdmissionregistrationV1WebhookClientConfig | undefined,
  timeoutSeconds: number,
  signal: AbortSignal,
): Promise<{ facts: BackendFacts; probe: ProbeResult; text: string; caPem?: string }> {
  const caPem = cc?.caBundle ? Buffer.from(cc.caBundle, "base64").toString("utf8") : undefined;
  const view = await backendOf(client, cc, signal);
  const timeoutMs = Math.min(timeoutSeconds, 30) * 1000;
  if (view.type === "url") {
    if (!view.host) {
      return {
        facts: { kind: "url" },
        probe: { status: "not-probed", reason: "the URL cannot be parsed" },
        text: view.url,
      };
    }
    return {
      facts: { kind: "url", serverName: view.host },
      probe: await probeTls({
        host: view.host,
        port: view.port,
        serverName: view.host.replace(/^\[|\]$/g, ""),
        caPem,
        timeoutMs,
      }),
      text: view.url,
      caPem,
    };
  }
  if (view.type === "service") {
    const serverName = `${view.name}.${view.namespace}.svc`;
    const facts: BackendFacts = {
      kind: "service",
      serviceExists: view.exists,
      // Only endpoints on a port named like the Service port are called (when known).
      readyEndpoints: view.endpoints.readyForPort ?? view.endpoints.ready,
      readyOnOtherPorts:
        view.endpoints.readyForPort === undefined
          ? undefined
          : view.endpoints.ready - view.endpoints.readyForPort,
      port: view.port,
      portServed: view.portServed,
      portName: view.portName,
      serviceType: view.serviceType,
      externalName: view.externalName,
      headless: view.clusterIP === "None",
      serverName,
    };
    const probe: ProbeResult =
      view.exists === false
        ? { status: "not-probed", reason: "the Service does not exist" }
        : await probeTls({
            // The apiserver dials an ExternalName Service's name, and still verifies the Service's
            // own name (`<svc>.<ns>.svc`) in the certificate.
            host: (view.serviceType === "ExternalName" && view.externalName) || serverName,
            port: view.port,
            serverName,
            caPem,
            timeoutMs,
          });
    return {
      facts,
      probe,
      text: `service ${view.namespace}/${view.name}:${view.port}${view.path ?? ""}`,
      caPem,
    };
  }
  return {
    facts: { kind: "none" },
    probe: { status: "not-probed", reason: "no clientConfig" },
    text: "—",
  };
}

function caDaysLeft(caBundle: string | undefined): CaFacts {
  if (!caBundle) return { empty: true };
  const view = decodeCaBundle(caBundle);
  return caFactsOf(view.certificates, view.error, Date.now(), view.unparseable);
}

/**
 * Every webhook (and conversion webhook, and validating policy binding with checks) of the
 * cluster, judged from the apiserver's metrics as `context` reads them, a probe of each backend
 * from here and its CA bundle; worst first. A filter narrows the report to one configuration's
 * hooks or one policy's bindings before anything is probed, so a detail page costs one
 * configuration's handshakes, not the cluster's. `metricsClient` gives the client that scrapes
 * /metrics (by default `client`; in shared mode the dashboard's own, once the user may read it).
 */
export async function admissionHealth(
  context: string,
  client: KubeClient,
  signal: AbortSignal,
  filter: HealthFilter = {},
  metricsClient: () => Promise<KubeClient> = async () => client,
  statics?: ManifestObjects,
): Promise<HealthReport> {
  const wants = (source: string, configuration: string) =>
    filter.policy === undefined &&
    (filter.source === undefined || filter.source === source) &&
    (filter.configuration === undefined || filter.configuration === configuration);
  const [mutating, validating] = await Promise.all(
    ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"].map((r) =>
      client.request<{ items: ConfigLike[] }>({
        path: `/apis/admissionregistration.k8s.io/v1/${r}`,
        signal,
      }),
    ),
  );
  let metrics: MetricsView | undefined;
  let metricsError: string | undefined;
  try {
    metrics = await admissionMetrics(context, await metricsClient());
  } catch (e) {
    metricsError =
      e instanceof KubeApiError && e.status === 403
        ? "this identity may not read the apiserver's /metrics (grant get on the non-resource URL /metrics)"
        : `the apiserver's /metrics could not be read: ${e instanceof Error ? e.message : String(e)}`;
  }
  let crds: CrdLike[] = [];
  let conversionError: string | undefined;
  try {
    crds = (
      await client.request<{ items: CrdLike[] }>({
        path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        signal,
      })
    ).items;
  } catch (e) {
    conversionError = e instanceof Error ? e.message : String(e);
  }

  // The static configurations (loaded by the apiserver from its manifest directories, when the
  // dashboard reads them) are judged like the API's, first as the apiserver calls them.
  const staticMutating = (statics?.mutatingWebhookConfigurations ?? []) as ConfigLike[];
  const staticValidating = (statics?.validatingWebhookConfigurations ?? []) as ConfigLike[];
  const originOf = (source: string, name: string): ManifestOrigin | undefined =>
    statics?.origins[manifestOriginKey(source as ManifestKind, name)];
  const allMutating = [...staticMutating, ...(mutating?.items ?? [])];
  const allValidating = [...staticValidating, ...(validating?.items ?? [])];
  const hooks: Array<{
    source: string;
    type: string;
    cfg: string;
    index: number;
    h: HookLike;
    origin?: ManifestOrigin;
  }> = [];
  for (const [source, type, list] of [
    ["MutatingWebhookConfiguration", "admit", allMutating],
    ["ValidatingWebhookConfiguration", "validating", allValidating],
  ] as const) {
    for (const c of list) {
      const cfg = c.metadata?.name ?? "";
      if (!wants(source, cfg)) continue;
      const origin = originOf(source, cfg);
      (c.webhooks ?? []).forEach((h, index) =>
        hooks.push({ source, type, cfg, index, h, ...(origin ? { origin } : {}) }),
      );
    }
  }
  // Counted over every configuration, whatever the filter: the ambiguity is the cluster's.
  const sameName = new Map<string, number>();
  for (const [type, list] of [
    ["admit", allMutating],
    ["validating", allValidating],
  ] as const) {
    for (const c of list) {
      for (const h of c.webhooks ?? []) {
        const k = webhookKey(h.name ?? "", type);
        sameName.set(k, (sameName.get(k) ?? 0) + 1);
      }
    }
  }

  const rows: HealthRow[] = await Promise.all(
    hooks.map(async (x) => {
      const timeoutSeconds = x.h.timeoutSeconds ?? 10;
      const failurePolicy = x.h.failurePolicy === "Ignore" ? "Ignore" : "Fail";
      const key = webhookKey(x.h.name ?? "", x.type);
      const series = metrics?.series(key);
      const b = await backendAndProbe(client, x.h.clientConfig, timeoutSeconds, signal);
      const ca = caDaysLeft(x.h.clientConfig?.caBundle);
      const health = assessHook({
        failurePolicy,
        timeoutSeconds,
        total: series?.total,
        window: series?.window,
        previousWindow: series?.previousWindow,
        sameName: sameName.get(key) ?? 1,
        backend: b.facts,
        probe: b.probe,
        ca,
      });
      return {
        source: x.source,
        configuration: x.cfg,
        hook: x.h.name ?? "",
        index: x.index,
        failurePolicy,
        timeoutSeconds,
        severity: health.severity,
        reasons: health.reasons,
        latency: health.latency,
        window: summary(series?.window),
        total: series?.total && { ...summary(series.total)!, byCode: series.total.byCode },
        errorRate: health.errorRate,
        spark: series?.spark ?? [],
        ...(series?.sparkSpan ? { sparkSpan: series.sparkSpan } : {}),
        backend: b.text,
        probe: b.probe,
        caDaysLeft: ca.daysLeft,
        ...(x.origin ? { origin: x.origin } : {}),
        traces: summarizeCalls(
          callsOf(x.type === "admit" ? "mutating" : "validating", x.cfg, x.h.name ?? ""),
          timeoutSeconds,
          // The latest calls only for one configuration (a detail page), not for the whole cluster.
          filter.configuration === undefined ? 0 : 10,
        ),
      };
    }),
  );

  for (const crd of crds) {
    const conv = crd.spec?.conversion;
    if (conv?.strategy !== "Webhook") continue;
    if (!wants("CustomResourceDefinition", crd.metadata?.name ?? "")) continue;
    const cc = conv.webhook?.clientConfig;
    const b = await backendAndProbe(client, cc, 10, signal);
    const ca = caDaysLeft(cc?.caBundle);
    // A failing conversion webhook fails every read and write of the resource: fail-closed.
    const health = assessHook({
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      sameName: 1,
      backend: b.facts,
      probe: b.probe,
      ca,
    });
    rows.push({
      source: "CustomResourceDefinition",
      configuration: crd.metadata?.name ?? "",
      hook: crd.metadata?.name ?? "",
      index: 0,
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      severity: health.severity,
      reasons: health.reasons,
      latency: health.latency,
      spark: [],
      backend: b.text,
      probe: b.probe,
      caDaysLeft: ca.daysLeft,
    });
  }

  rows.sort(
    (a, b) =>
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      (b.latency.p99 ?? 0) / b.timeoutSeconds - (a.latency.p99 ?? 0) / a.timeoutSeconds ||
      a.configuration.localeCompare(b.configuration) ||
      a.index - b.index,
  );

  const policies = metrics ? await policyRows(client, metrics, filter, signal, statics) : [];

  return {
    scrapedAt: metrics?.scrapedAt ?? Date.now(),
    windowSeconds: metrics?.windowSeconds ?? 0,
    metricsError,
    conversionError,
    labelNames: metrics?.labelNames ?? {},
    rows,
    policies,
    traces: receiverStatus(),
  };
}

const POLICY_RESOURCE: Record<PolicyKind, string> = {
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
  MutatingAdmissionPolicy: "mutatingadmissionpolicies",
};

/**
 * Each kind's policies by name → failurePolicy, read at the newest version the cluster serves
 * (mutating policies may be served at v1beta1 or v1alpha1 only). Undefined for a kind that
 * cannot be listed: existence and failure policy are then unknown, never guessed.
 */
async function policiesByKind(
  client: KubeClient,
  kinds: ReadonlySet<PolicyKind>,
  signal: AbortSignal,
): Promise<Partial<Record<PolicyKind, Map<string, string | undefined>>>> {
  const out: Partial<Record<PolicyKind, Map<string, string | undefined>>> = {};
  let served: ReturnType<typeof servedKinds>;
  try {
    served = servedKinds(await admissionApis(client, signal));
  } catch {
    return out;
  }
  await Promise.all(
    [...kinds].map(async (kind) => {
      const ref = served.find((k) => k.known.resource === POLICY_RESOURCE[kind])?.readAt;
      if (!ref) return;
      try {
        const list = await listCollection(client, ref, signal);
        out[kind] = new Map(
          list.items.map((i) => {
            const o = i as { metadata?: { name?: string }; spec?: { failurePolicy?: string } };
            return [o.metadata?.name ?? "", o.spec?.failurePolicy ?? "Fail"];
          }),
        );
      } catch {
        // Unknown, not absent: the rows say nothing about existence or failure policy.
      }
    }),
  );
  return out;
}

/**
 * Every admission policy binding the apiserver has counted (validating and mutating, keyed by
 * kind so same-named policies never mix), judged and sorted worst first. The metrics outlive a
 * deleted policy (they count since the apiserver started): each row says whether it still exists.
 */
async function policyRows(
  client: KubeClient,
  metrics: MetricsView,
  filter: HealthFilter,
  signal: AbortSignal,
  statics?: ManifestObjects,
): Promise<PolicyHealthRow[]> {
  if (filter.configuration !== undefined || filter.source !== undefined) return [];
  const counted = [...metrics.latest.policies.values()].filter(
    (p) =>
      (filter.kind === undefined || filter.kind === p.kind) &&
      (filter.policy === undefined || filter.policy === p.policy) &&
      (filter.binding === undefined || filter.binding === p.binding),
  );
  if (counted.length === 0) return [];
  const live = await policiesByKind(client, new Set(counted.map((p) => p.kind)), signal);
  // Static policies are absent from the API's lists: their failurePolicy is read from their file.
  const staticPolicy = (kind: PolicyKind, name: string) => {
    const origin = statics?.origins[manifestOriginKey(kind, name)];
    if (!origin) return undefined;
    const list = (
      kind === "ValidatingAdmissionPolicy"
        ? statics?.validatingAdmissionPolicies
        : statics?.mutatingAdmissionPolicies
    ) as ReadonlyArray<{ metadata?: { name?: string }; spec?: { failurePolicy?: string } }>;
    const o = list.find((x) => x.metadata?.name === name);
    return { origin, failurePolicy: o?.spec?.failurePolicy ?? "Fail" };
  };
  const rows = counted.map((p): PolicyHealthRow => {
    const series = metrics.policySeries(policyKey(p.kind, p.policy, p.binding));
    const known = live[p.kind];
    const fromFile = staticPolicy(p.kind, p.policy);
    const fp = fromFile ? fromFile.failurePolicy : known?.get(p.policy);
    const failurePolicy = fp === "Ignore" ? "Ignore" : fp === undefined ? undefined : "Fail";
    const health = assessPolicy({
      kind: p.kind,
      failurePolicy,
      total: p,
      window: series.window,
    });
    return {
      kind: p.kind,
      policy: p.policy,
      binding: p.binding,
      failurePolicy,
      severity: health.severity,
      reasons: health.reasons,
      checks: p.checks,
      byAction: p.byAction,
      errors: p.errors,
      evaluationErrors: p.evaluationErrors,
      window: series.window && {
        checks: series.window.checks,
        evaluationErrors: series.window.evaluationErrors,
      },
      latency: health.latency,
      latencyBuckets: health.latencyBuckets,
      exists: fromFile ? true : known ? known.has(p.policy) : undefined,
      ...(fromFile ? { origin: fromFile.origin } : {}),
    };
  });
  return rows.sort(
    (a, b) =>
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      (b.latency.p99 ?? 0) - (a.latency.p99 ?? 0) ||
      a.policy.localeCompare(b.policy) ||
      a.binding.localeCompare(b.binding) ||
      a.kind.localeCompare(b.kind),
  );
}
