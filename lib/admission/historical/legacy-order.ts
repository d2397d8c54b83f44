/**
 * The historical webhook kinds' settings and call order, pure and light (no matcher, so the pages
 * that list them stay small): v1beta1 Mutating/ValidatingWebhookConfiguration (1.9–1.21) with the
 * v1beta1 defaults against v1's, and ExternalAdmissionHookConfiguration (1.7–1.8) as the
 * validating webhook it became in 1.9. Reference §1.2, §6.2, §6.3. Prediction is
 * lib/admission/historical/legacy-hooks.ts.
 */
import type { V1ValidatingWebhookConfiguration } from "@/lib/k8s/types";
import { byName } from "../model/by-name";
import type {
  ExternalAdmissionHookConfiguration,
  AdmissionSnapshot,
  V1beta1WebhookConfiguration,
} from "../model/snapshot";
import { webhookDefaults } from "../model/webhook-defaults";

/** One setting of a v1beta1 hook: its value, whether it is the default, and v1's default. */
export interface SettingRow {
  readonly field: string;
  /** The effective value, in words (`{}` for an empty selector). */
  readonly value: string;
  /** True when the hook leaves it unset and the v1beta1 default applies. */
  readonly defaulted: boolean;
  /** What v1 would default it to (`required` where v1 has no default). */
  readonly v1Default: string;
  /** True when the effective value differs from what the same hook gets under v1. */
  readonly differsFromV1: boolean;
}

interface AnyHook {
  readonly failurePolicy?: string | null;
  readonly matchPolicy?: string | null;
  readonly sideEffects?: string | null;
  readonly timeoutSeconds?: number | null;
  readonly admissionReviewVersions?: readonly string[] | null;
  readonly namespaceSelector?: unknown;
  readonly objectSelector?: unknown;
  readonly reinvocationPolicy?: string | null;
  readonly rules?: ReadonlyArray<{
    readonly scope?: string | null;
    readonly operations?: readonly string[];
    readonly apiGroups?: readonly string[];
    readonly apiVersions?: readonly string[];
    readonly resources?: readonly string[];
  }> | null;
}

function selectorSummary(s: unknown): string {
  if (s === undefined || s === null) return "{}";
  const o = s as { matchLabels?: Record<string, unknown>; matchExpressions?: unknown[] };
  const parts: string[] = [];
  for (const [k, v] of Object.entries(o.matchLabels ?? {})) parts.push(`${k}=${String(v)}`);
  for (const e of o.matchExpressions ?? []) {
    const x = e as { key?: string; operator?: string; values?: string[] };
    parts.push(
      `${x.key ?? ""} ${x.operator ?? ""}${x.values?.length ? ` (${x.values.join(", ")})` : ""}`,
    );
  }
  return parts.length === 0 ? "{}" : parts.join(", ");
}

/**
 * The effective settings of one v1beta1 webhook, in the apiserver's defaulting order
 * (`SetDefaults_MutatingWebhook` / `SetDefaults_ValidatingWebhook` and `SetDefaults_Rule` of
 * pkg/apis/admissionregistration/v1beta1/defaults.go), each beside the v1 default.
 */
export function v1beta1Settings(hook: AnyHook, mutating: boolean): SettingRow[] {
  const b = webhookDefaults("v1beta1");
  const v1 = webhookDefaults("v1");
  const rows: SettingRow[] = [];
  const row = (field: string, set: string | undefined, dflt: string, v1Default: string) => {
    const value = set ?? dflt;
    const underV1 = set ?? v1Default;
    rows.push({
      field,
      value,
      defaulted: set === undefined,
      v1Default,
      differsFromV1: value !== underV1,
    });
  };
  const str = (v: string | null | undefined) => (v === null || v === undefined ? undefined : v);
  row("failurePolicy", str(hook.failurePolicy), b.failurePolicy, v1.failurePolicy);
  row("matchPolicy", str(hook.matchPolicy), b.matchPolicy, v1.matchPolicy);
  row("sideEffects", str(hook.sideEffects), b.sideEffects ?? "Unknown", "required");
  row(
    "timeoutSeconds",
    hook.timeoutSeconds === null || hook.timeoutSeconds === undefined
      ? undefined
      : String(hook.timeoutSeconds),
    String(b.timeoutSeconds),
    String(v1.timeoutSeconds),
  );
  row(
    "admissionReviewVersions",
    hook.admissionReviewVersions && hook.admissionReviewVersions.length > 0
      ? `[${hook.admissionReviewVersions.join(", ")}]`
      : undefined,
    "[v1beta1]",
    "required",
  );
  row(
    "namespaceSelector",
    hook.namespaceSelector === undefined || hook.namespaceSelector === null
      ? undefined
      : selectorSummary(hook.namespaceSelector),
    "{}",
    "{}",
  );
  row(
    "objectSelector",
    hook.objectSelector === undefined || hook.objectSelector === null
      ? undefined
      : selectorSummary(hook.objectSelector),
    "{}",
    "{}",
  );
  const scopes = (hook.rules ?? []).map((r) => r.scope ?? undefined);
  const unset = scopes.filter((s) => s === undefined).length;
  row(
    "rules[].scope",
    scopes.length > 0 && unset === 0 ? [...new Set(scopes)].join(", ") : undefined,
    scopes.length === 0 || unset === scopes.length
      ? b.ruleScope
      : [...new Set(scopes.map((s) => s ?? b.ruleScope))].join(", "),
    v1.ruleScope,
  );
  if (mutating)
    row(
      "reinvocationPolicy",
      str(hook.reinvocationPolicy),
      b.reinvocationPolicy,
      v1.reinvocationPolicy,
    );
  return rows;
}

/** The sections the historical hooks are ordered and predicted in. */
export type LegacySectionId =
  "v1beta1-mutating" | "v1beta1-validating" | "external-admission-hooks";

export const V1BETA1_API_VERSION = "admissionregistration.k8s.io/v1beta1";

/** An ExternalAdmissionHookConfiguration as a v1beta1 validating webhook configuration. */
export function externalAsValidating(
  c: ExternalAdmissionHookConfiguration,
): V1ValidatingWebhookConfiguration {
  return {
    apiVersion: V1BETA1_API_VERSION,
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: c.metadata?.name ?? "" },
    webhooks: (c.externalAdmissionHooks ?? []).map((h) => ({
      name: h.name,
      clientConfig: {
        service: {
          namespace: h.clientConfig?.service?.namespace ?? "",
          name: h.clientConfig?.service?.name ?? "",
        },
      },
      rules: (h.rules ?? []).map((r) => ({
        operations: [...(r.operations ?? [])],
        apiGroups: [...(r.apiGroups ?? [])],
        apiVersions: [...(r.apiVersions ?? [])],
        resources: [...(r.resources ?? [])],
      })),
      failurePolicy: h.failurePolicy === "Fail" ? "Fail" : "Ignore",
      matchPolicy: "Exact",
      sideEffects: "Unknown",
      admissionReviewVersions: ["v1beta1"],
    })),
  };
}

/** One hook in a historical section's call order. */
interface LegacyOrderEntry {
  /** 0-based place in its section. */
  readonly index: number;
  readonly configuration: string;
  readonly position: number;
  readonly name: string;
  /** `<configuration>/<name>/<n>`, n counting duplicate names in the configuration. */
  readonly key: string;
  readonly failurePolicy: string;
  readonly matchPolicy: string;
  readonly timeoutSeconds: number;
  readonly sideEffects: string;
  /** Mutating only. */
  readonly reinvocationPolicy: string | null;
}

/** A labelled section of historical hooks in call order. */
export interface LegacyOrderSection {
  readonly id: LegacySectionId;
  readonly title: string;
  readonly note: string;
  readonly entries: readonly LegacyOrderEntry[];
}

export const LEGACY_SECTION_TEXT: Record<LegacySectionId, { title: string; note: string }> = {
  "v1beta1-mutating": {
    title: "v1beta1 mutating webhooks (1.9–1.21) — serial",
    note: "configurations by name, hooks in list order, each sees the object as the previous one left it; defaults failurePolicy Ignore, matchPolicy Exact, timeout 30 s",
  },
  "v1beta1-validating": {
    title: "v1beta1 validating webhooks (1.9–1.21) — one parallel stage",
    note: "called at once after the mutating ones; order below is by name only; defaults failurePolicy Ignore, matchPolicy Exact, timeout 30 s",
  },
  "external-admission-hooks": {
    title: "External admission hooks (1.7–1.8) — validating, in parallel",
    note: "the GenericAdmissionWebhook plugin called every matching hook at once and failed on the first denial; no selectors, no mutation; in 1.7 every call error failed open, whatever failurePolicy said",
  },
};

function oneOf<T extends string>(v: unknown, allowed: readonly T[], dflt: T): T {
  return allowed.includes(v as T) ? (v as T) : dflt;
}

/**
 * Every hook of the configurations in the apiserver's order (configurations by name, hooks in
 * list order) with the v1beta1 defaults applied, as compile.ts does for a v1beta1 object.
 */
function entries(
  configs: readonly V1beta1WebhookConfiguration[],
  mutating: boolean,
): LegacyOrderEntry[] {
  const d = webhookDefaults("v1beta1");
  const out: LegacyOrderEntry[] = [];
  for (const cfg of byName(configs)) {
    const configuration = cfg.metadata?.name ?? "";
    const seen = new Map<string, number>();
    (cfg.webhooks ?? []).forEach((w, position) => {
      const n = seen.get(w.name) ?? 0;
      seen.set(w.name, n + 1);
      out.push({
        index: out.length,
        configuration,
        position,
        name: w.name,
        key: `${configuration}/${w.name}/${n}`,
        failurePolicy: oneOf(w.failurePolicy, ["Fail", "Ignore"], d.failurePolicy),
        matchPolicy: oneOf(w.matchPolicy, ["Exact", "Equivalent"], d.matchPolicy),
        timeoutSeconds: typeof w.timeoutSeconds === "number" ? w.timeoutSeconds : d.timeoutSeconds,
        sideEffects: w.sideEffects ?? d.sideEffects ?? "Unknown",
        reinvocationPolicy: mutating
          ? oneOf(w.reinvocationPolicy, ["Never", "IfNeeded"], d.reinvocationPolicy)
          : null,
      });
    });
  }
  return out;
}

/** The historical hooks in call order, one section per kind that has any. */
export function legacyOrder(
  s: Pick<
    AdmissionSnapshot,
    | "legacyMutatingWebhookConfigurations"
    | "legacyValidatingWebhookConfigurations"
    | "externalAdmissionHookConfigurations"
  >,
): LegacyOrderSection[] {
  const sections: Array<[LegacySectionId, LegacyOrderEntry[]]> = [
    ["v1beta1-mutating", entries(s.legacyMutatingWebhookConfigurations ?? [], true)],
    ["v1beta1-validating", entries(s.legacyValidatingWebhookConfigurations ?? [], false)],
    [
      "external-admission-hooks",
      entries(
        (s.externalAdmissionHookConfigurations ?? []).map(
          (c) => externalAsValidating(c) as unknown as V1beta1WebhookConfiguration,
        ),
        false,
      ),
    ],
  ];
  return sections
    .filter(([, es]) => es.length > 0)
    .map(([id, es]) => ({ id, ...LEGACY_SECTION_TEXT[id], entries: es }));
}
