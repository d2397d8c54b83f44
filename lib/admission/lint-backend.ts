/** Backend checks: L7 (service, endpoints, port, url host) and L8 (CA bundle). */
import type { CompiledWebhook } from "@/lib/admission/compile";
import type { AdmissionregistrationV1WebhookClientConfig } from "@/lib/k8s/types";
import { parseCaBundle } from "@/lib/admission/pem";
import { webhookObject, type LintContext, type LintFinding } from "@/lib/admission/lint-types";

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
    if (!service) {
      add(
        "Webhook service missing",
        `${hook.id.name} points at service ${svc.namespace}/${svc.name}, which does not exist: every call fails with service "${svc.name}" not found`,
        true,
      );
      continue;
    }
    if (service.spec?.clusterIP === "None")
      add(
        "Headless webhook service",
        `the apiserver cannot route to service ${svc.namespace}/${svc.name} with ClusterIP "None"`,
        true,
      );
    const sp = service.spec?.ports?.find((p) => p.port === port);
    if (!sp)
      add(
        "Webhook service port missing",
        `service ${svc.namespace}/${svc.name} has no port ${port}`,
        true,
      );
    if (ctx.input.endpointSlices) {
      const ready = ctx.input.endpointSlices
        .filter(
          (e) =>
            e.metadata?.namespace === svc.namespace &&
            e.metadata?.labels?.["kubernetes.io/service-name"] === svc.name,
        )
        .some((e) => (e.endpoints ?? []).some((ep) => ep.conditions?.ready !== false));
      if (!ready)
        add(
          "Webhook service has no ready endpoints",
          `service ${svc.namespace}/${svc.name} has no ready endpoints; calls to ${hook.id.name} fail${fail ? " and, with failurePolicy Fail, reject every matching request" : ""}`,
          true,
        );
    }
  }
  return out;
}

/** L8: caBundle parses and is not expired or about to expire. */
export function checkCaBundles(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const now = ctx.input.now ?? new Date();
  const warnMs = (ctx.input.certWarningDays ?? 30) * 86_400_000;
  for (const { hook, cc } of clientConfigs(ctx)) {
    if (!cc.caBundle) continue;
    const certs = parseCaBundle(cc.caBundle);
    const problems: string[] = [];
    if (certs.length === 0) problems.push("caBundle holds no PEM certificate");
    for (const c of certs) {
      if (!c.ok) problems.push(`a certificate does not parse (${c.error})`);
      else if (c.notAfter.getTime() < now.getTime())
        problems.push(`a CA certificate expired on ${c.notAfter.toISOString()}`);
      else if (c.notAfter.getTime() - now.getTime() < warnMs)
        problems.push(`a CA certificate expires on ${c.notAfter.toISOString()}`);
      else if (c.notBefore.getTime() > now.getTime())
        problems.push(`a CA certificate is not valid before ${c.notBefore.toISOString()}`);
    }
    if (problems.length === 0) continue;
    out.push({
      id: "L8",
      severity: "high",
      title: "CA bundle problem",
      objects: [webhookObject(hook)],
      explanation: `${hook.id.name}: ${problems.join("; ")}. The apiserver does not check caBundle on write; TLS to the webhook fails instead.`,
      // No patch: only the admin has the serving CA, and a placeholder would not apply.
      fix: {
        description:
          "replace clientConfig.caBundle with the base64 PEM of the CA that signs the serving certificate",
        target: webhookObject(hook),
      },
    });
  }
  return out;
}
