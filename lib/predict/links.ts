/**
 * Links to the predict page opened on a request one hook is called for (see hook-example.ts):
 * `/predict?for=SOURCE/CONFIGURATION/NAME`. Pure and light, for every page that links a hook.
 */
import { isPolicySource, type HookSourceKind } from "@/lib/admission/model/hook-identity";

/** A webhook, or a policy binding (`name` "" for any binding of the policy). */
export interface HookTarget {
  source: HookSourceKind;
  /** The configuration's or the policy's name. */
  configuration: string;
  /** The webhook's or the binding's name. */
  name: string;
}

const SOURCES: readonly HookSourceKind[] = [
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
];

/** Whether a hook (as a prediction names it) is the target; any binding for a policy's. */
export function isTarget(
  hook: { source: string; configuration: string; name: string },
  target: HookTarget,
): boolean {
  return (
    hook.source === target.source &&
    hook.configuration === target.configuration &&
    (target.name === "" || hook.name === target.name)
  );
}

/** The predict page's `for` parameter naming a target: `SOURCE/CONFIGURATION/NAME`. */
export function hookTargetParam(t: HookTarget): string {
  return `${t.source}/${t.configuration}/${t.name}`;
}

/** Reads `for`; undefined when it does not name a webhook or a policy. */
export function parseHookTarget(s: string | null): HookTarget | undefined {
  if (s === null || s.length > 1024) return undefined;
  const a = s.indexOf("/");
  const b = s.indexOf("/", a + 1);
  if (a < 0 || b < 0) return undefined;
  const source = SOURCES.find((k) => k === s.slice(0, a));
  const configuration = s.slice(a + 1, b);
  const name = s.slice(b + 1);
  if (!source || configuration === "") return undefined;
  if (name === "" && !isPolicySource(source)) return undefined;
  return { source, configuration, name };
}

/**
 * The predict page for a hook: opened on a request the hook is called for. A source that is not
 * a webhook or a policy (a conversion webhook of a CustomResourceDefinition) gets the bare page.
 */
export function predictHref(t?: { source: string; configuration: string; name: string }): string {
  const source = SOURCES.find((k) => k === t?.source);
  if (!t || !source) return "/predict";
  return `/predict?${new URLSearchParams({ for: hookTargetParam({ ...t, source }) }).toString()}`;
}
