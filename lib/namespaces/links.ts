/** Links between the namespaces pages, the per-hook page and the webhook pages (pure). */
import type { HookIdentity, HookSourceKind } from "@/lib/admission/hook-identity";

/** The per-namespace page. */
export function namespaceHref(name: string): string {
  return `/namespaces/${encodeURIComponent(name)}`;
}

/** The per-hook page: namespaces a webhook or policy binding covers and exempts. */
export function hookHref(id: Pick<HookIdentity, "source" | "configuration" | "name">): string {
  return `/hooks/${id.source}/${encodeURIComponent(id.configuration)}/${encodeURIComponent(id.name)}`;
}

const WEBHOOK_RESOURCE: Partial<Record<HookSourceKind, string>> = {
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
};

/** The webhook detail page of the configuration a hook lives in (webhooks only). */
export function configurationHref(
  id: Pick<HookIdentity, "source" | "configuration">,
): string | undefined {
  const r = WEBHOOK_RESOURCE[id.source];
  return r ? `/webhooks/${r}/${encodeURIComponent(id.configuration)}` : undefined;
}

/** The editor for a configuration, opened on a proposed JSON Patch (see the edit page). */
export function proposedEditHref(
  id: Pick<HookIdentity, "source" | "configuration">,
  patch: unknown,
): string | undefined {
  const r = WEBHOOK_RESOURCE[id.source];
  if (!r) return undefined;
  return `/webhooks/${r}/${encodeURIComponent(id.configuration)}/edit?patch=${encodeURIComponent(JSON.stringify(patch))}`;
}

export const HOOK_SOURCES: readonly HookSourceKind[] = [
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
];
