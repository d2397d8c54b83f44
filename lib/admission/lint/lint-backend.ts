/** Backend checks: L7 (service, endpoints, port, url host) and L8 (CA bundle). */
import type { CompiledWebhook } from "@/lib/admission/matching/compile";
import type { AdmissionregistrationV1WebhookClientConfig } from "@/lib/k8s/types";
import { parseCaBundle } from "@/lib/admission/health/pem";
import { judgeServiceBackend, serviceBackendFacts } from "@/lib/admission/health/backend-judgement";
import { caFactsOf, judgeCaBundle } from "@/lib/admission/health/ca-judgement";
import { webhookObject, type LintContext, type LintFinding } from "@/lib/admission/lint/lint-types";

function clientConfigs(
  ctx: LintContext,
): Array<{ hook: CompiledWebhook; cc: AdmissionregistrationV1WebhookClientConfig }> {
  const raw = new Map<string, AdmissionregistrationV1WebhookClientConfig>();
  for (const cfg of [
    ...(ctx.input.snapshot.mutatingWebhookConfigurations ?? []),
    ...(ctx.input.snapshot.validatingWebhookConfigurations ?? []),
  ]) {
    (cfg.webhooks ?? []).forEach((w, i) =>
      raw.set(`${cfg.metadata?.name ?? ""}/${i}/${w.name}`, w.clientConfig),
    );
  }
  const out: Array<{ hook: CompiledWebhook; cc: AdmissionregistrationV1WebhookClientConfig }> = [];
  for (const hook of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    const cc = raw.get(`${hook.id.configuration}/${hook.id.position}/${hook.id.name}`);
    if (cc) out.push({ hook, cc });
  }
  return out;
}

/** L7: backend reachability as far as cluster objects tell (offline: only the url host and port). */
export function checkBackends(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const haveCluster = ctx.input.services !== undefined;
  for (const { hook, cc } of clientConfigs(ctx)) {
    const fail = hook.failurePolicy === "Fail";
    const add = (title: string, explanation: string, critical: boolean) =>
      out.push({
        id: "L7",
        severity: critical && fail ? "critical" : critical ? "high" : "medium",
        title,
        objects: [webhookObject(hook)],
        explanation,
        fix: { description: "fix the backend or the clientConfig", target: webhookObject(hook) },
      });
    if (cc.url) {
      let host = "";
      try {
        host = new URL(cc.url).hostname;
      } catch {
        add("Invalid webhook URL", `${hook.id.name} has url ${cc.url}, which does not parse`, true);
        continue;
      }
      if (host === "localhost" || host === "127.0.0.1" || host === "[::1]") {
        add(
          "Webhook URL points at the apiserver's own host",
          `${hook.id.name} calls ${cc.url}; the docs call localhost risky: it only works where a backend runs beside every apiserver`,
          false,
        );
      }
      continue;
    }
    const svc = cc.service;
    if (!svc) continue;
    const port = svc.port ?? 443;
    if (port < 1 || port > 65535)
      add("Invalid service port", `${hook.id.name} uses port ${port}`, true);
    if (!haveCluster) continue;
    const service = ctx.input.services?.find(
      (s) => s.metadata?.namespace === svc.namespace && s.metadata?.name === svc.name,
    );
    const slices = ctx.input.endpointSlices?.filter(
      (e) =>
        e.metadata?.namespace === svc.namespace &&
        e.metadata?.labels?.["kubernetes.io/service-name"] === svc.name,
    );
    // The same judgement as the health page's, from the same objects.
    for (const j of judgeServiceBackend(serviceBackendFacts(service, slices, port), fail)) {
      out.push({
        id: "L7",
        severity: j.severity,
        title: j.title,
        objects: [webhookObject(hook)],
        explanation: `${hook.id.name} calls service ${svc.namespace}/${svc.name}:${port}; ${j.message}`,
        fix: { description: "fix the backend or the clientConfig", target: webhookObject(hook) },
      });
    }
  }
  return out;
}

const CA_TITLES: Record<string, string> = {
  "ca-unreadable": "CA bundle does not load",
  "ca-not-yet-valid": "CA bundle not valid yet",
  "ca-expired": "CA bundle expired",
  "ca-expiring": "CA bundle expiring",
  "ca-unusable-certificates": "CA bundle holds unusable certificates",
  "ca-skipped-blocks": "CA bundle holds unparseable blocks",
};

/**
 * L8: the caBundle as the apiserver loads it (the same judgement as the health page's): nothing
 * loads, no certificate valid now, expiry ahead; and, for information, what it skips or cannot use.
 */
export function checkCaBundles(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const now = (ctx.input.now ?? new Date()).getTime();
  for (const { hook, cc } of clientConfigs(ctx)) {
    if (!cc.caBundle) continue;
    const parsed = parseCaBundle(cc.caBundle);
    const certificates = parsed.flatMap((c) =>
      c.ok ? [{ notBefore: c.notBefore.toISOString(), notAfter: c.notAfter.toISOString() }] : [],
    );
    const failed = parsed.flatMap((c) => (c.ok ? [] : [c.error]));
    const facts = caFactsOf(
      certificates,
      failed.length > 0 ? `a certificate does not parse (${failed[0]})` : undefined,
      now,
      failed.length,
    );
    const judged = judgeCaBundle(facts, hook.failurePolicy === "Fail", ctx.input.certWarningDays);
    for (const j of judged) {
      const info = j.severity === "info";
      out.push({
        id: "L8",
        severity: j.severity,
        title: CA_TITLES[j.code] ?? "CA bundle problem",
        objects: [webhookObject(hook)],
        explanation: `${hook.id.name}: ${j.message}.${info ? "" : " The apiserver checks only that caBundle is base64 on write; TLS to the webhook fails instead."}`,
        // No patch: only the admin has the serving CA, and a placeholder would not apply.
        fix: {
          description: info
            ? "drop the certificates the apiserver cannot use from clientConfig.caBundle"
            : "replace clientConfig.caBundle with the base64 PEM of the CA that signs the serving certificate",
          target: webhookObject(hook),
        },
      });
    }
  }
  return out;
}
