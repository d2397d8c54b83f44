/** Links between the namespaces pages, the per-hook page and the webhook pages (pure). */
import type { HookIdentity, HookSourceKind } from "@/lib/admission/model/hook-identity";
import type { LintFix } from "@/lib/admission/lint/lint-types";

/** The per-namespace page. */
export function namespaceHref(name: string): string {
  return `/namespaces/${encodeURIComponent(name)}`;
}

/** The per-hook page: namespaces a webhook or policy binding covers and exempts. */
export function hookHref(id: Pick<HookIdentity, "source" | "configuration" | "name">): string {
  return `/hooks/${id.source}/${encodeURIComponent(id.configuration)}/${encodeURIComponent(id.name)}`;
}

/** The per-hook page of a webhook, by its configuration's kind (mutating or not), name and its own. */
export function webhookHookHref(mutating: boolean, configuration: string, name: string): string {
  const source = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  return hookHref({ source, configuration, name });
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

/**
 * The editor for a lint fix's target, opened on its JSON Patch as a proposed edit (see the edit
 * page); undefined when the fix has no patch or its target is not a webhook configuration.
 */
export function proposedEditHref(fix: LintFix | undefined): string | undefined {
  const target = fix?.target;
  if (!target || !fix.jsonPatch || fix.jsonPatch.length === 0) return undefined;
  const r = WEBHOOK_RESOURCE[target.kind as HookSourceKind];
  if (!r) return undefined;
  // The patch addresses the hook by its index, which a reorder or an insertion since the finding
  // gives to another hook: a `test` of the name makes it refuse to apply then, rather than change
  // a different hook (say, turn a security gate fail-open).
  const indexes = new Set(
    fix.jsonPatch.flatMap((o) => /^\/webhooks\/(\d+)(\/|$)/.exec(o.path)?.[1] ?? []),
  );
  const guard =
    target.hook !== undefined && indexes.size === 1
      ? [{ op: "test" as const, path: `/webhooks/${[...indexes][0]}/name`, value: target.hook }]
      : [];
  const q = new URLSearchParams({
    patch: JSON.stringify([...guard, ...fix.jsonPatch]),
    why: fix.description,
  });
  return `/webhooks/${r}/${encodeURIComponent(target.name)}/edit?${q.toString()}`;
}

export const HOOK_SOURCES: readonly HookSourceKind[] = [
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
];
