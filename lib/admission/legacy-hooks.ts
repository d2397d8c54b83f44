/**
 * The historical webhook kinds, pure: v1beta1 Mutating/ValidatingWebhookConfiguration (1.9–1.21)
 * and ExternalAdmissionHookConfiguration (1.7–1.8) — each hook's effective settings with the
 * v1beta1 defaults against v1's, their call order, and which of them a request would reach and why
 * the others are skipped. Reference §1.2, §6.2, §6.3.
 *
 * Matching reuses the v1 predictor: a v1beta1 configuration compiles with the v1beta1 defaults
 * (compile.ts reads the `/v1beta1` apiVersion), and an external admission hook is the validating
 * webhook it became in 1.9 — its rules, its failurePolicy (default Ignore), no selectors, Exact
 * matching. They are predicted apart from the cluster's own hooks, in sections of their own.
 */
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import { compileSnapshot } from "./compile";
import type { CompiledSnapshot, CompiledWebhook } from "./model";
import { predict } from "./predict";
import type { AdmissionRequest } from "./request";
import type {
  AdmissionSnapshot,
  ExternalAdmissionHookConfiguration,
  V1beta1WebhookConfiguration,
} from "./snapshot";
import { webhookDefaults } from "./webhook-defaults";

// ---------------------------------------------------------------- effective settings

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

function selectorText(s: unknown): string {
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
      : selectorText(hook.namespaceSelector),
    "{}",
    "{}",
  );
  row(
    "objectSelector",
    hook.objectSelector === undefined || hook.objectSelector === null
      ? undefined
      : selectorText(hook.objectSelector),
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

// ---------------------------------------------------------------- compiled sections

/** The sections the historical hooks are ordered and predicted in. */
export type LegacySectionId =
  "v1beta1-mutating" | "v1beta1-validating" | "external-admission-hooks";

/** The three kinds' hooks, each compiled as the apiserver of its time defaulted them. */
export interface CompiledLegacy {
  /** v1beta1 webhook configurations (mutating and validating). */
  readonly v1beta1: CompiledSnapshot;
  /** External admission hooks, as the validating webhooks they became in 1.9. */
  readonly external: CompiledSnapshot;
  /** True when there is nothing to show. */
  readonly empty: boolean;
}

const V1BETA1 = "admissionregistration.k8s.io/v1beta1";

/** An ExternalAdmissionHookConfiguration as a v1beta1 validating webhook configuration. */
export function externalAsValidating(
  c: ExternalAdmissionHookConfiguration,
): V1ValidatingWebhookConfiguration {
  return {
    apiVersion: V1BETA1,
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

/**
 * Forces the v1beta1 defaults whatever group the objects were read from. compileSnapshot reads
 * every field defensively and defaults what v1beta1 left optional (compile.ts).
 */
function asV1beta1<T>(xs: readonly V1beta1WebhookConfiguration[]): T[] {
  return xs.map((x) => ({ ...x, apiVersion: V1BETA1 }) as unknown as T);
}

/** Compiles the historical hooks of a snapshot (its namespaces and discovery shared). */
export function compileLegacy(s: AdmissionSnapshot): CompiledLegacy {
  const base = {
    namespaces: s.namespaces,
    discovery: s.discovery,
    excludeVirtualResources: s.excludeVirtualResources,
  };
  const m = s.legacyMutatingWebhookConfigurations ?? [];
  const v = s.legacyValidatingWebhookConfigurations ?? [];
  const e = s.externalAdmissionHookConfigurations ?? [];
  return {
    v1beta1: compileSnapshot({
      ...base,
      mutatingWebhookConfigurations: asV1beta1<V1MutatingWebhookConfiguration>(m),
      validatingWebhookConfigurations: asV1beta1<V1ValidatingWebhookConfiguration>(v),
    }),
    external: compileSnapshot({
      ...base,
      validatingWebhookConfigurations: e.map(externalAsValidating),
    }),
    empty: m.length + v.length + e.length === 0,
  };
}

/** One hook in a historical section's call order. */
export interface LegacyOrderEntry {
  /** 0-based place in its section. */
  readonly index: number;
  readonly configuration: string;
  readonly position: number;
  readonly name: string;
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

function entryOf(h: CompiledWebhook, index: number): LegacyOrderEntry {
  return {
    index,
    configuration: h.id.configuration,
    position: h.id.position,
    name: h.id.name,
    key: h.key,
    failurePolicy: h.failurePolicy,
    matchPolicy: h.match.matchPolicy,
    timeoutSeconds: h.timeoutSeconds,
    sideEffects: h.sideEffects ?? "Unknown",
    reinvocationPolicy: h.type === "mutating" ? h.reinvocationPolicy : null,
  };
}

/** The historical hooks in call order, one section per kind that has any. */
export function legacyOrder(c: CompiledLegacy): LegacyOrderSection[] {
  const sections: Array<[LegacySectionId, readonly CompiledWebhook[]]> = [
    ["v1beta1-mutating", c.v1beta1.mutating],
    ["v1beta1-validating", c.v1beta1.validating],
    ["external-admission-hooks", c.external.validating],
  ];
  return sections
    .filter(([, hooks]) => hooks.length > 0)
    .map(([id, hooks]) => ({ id, ...LEGACY_SECTION_TEXT[id], entries: hooks.map(entryOf) }));
}

// ---------------------------------------------------------------- prediction

/** A historical hook the request reaches. */
export interface LegacyCallReport {
  /** 0-based place in its section's calls. */
  order: number;
  round: 0 | 1;
  certainty: "certain" | "possible";
  configuration: string;
  name: string;
  position: number;
  key: string;
  failurePolicy: string;
  matchPolicy: string;
  /** null for external admission hooks (1.7–1.8 had no per-hook timeout). */
  timeoutSeconds: number | null;
  sideEffects: string;
  reinvocationPolicy: string | null;
  matchedRule: number;
  /** True when matchPolicy Equivalent converted the request for this hook. */
  converted: boolean;
}

/** A historical hook the request does not reach, and why. */
export interface LegacySkipReport {
  configuration: string;
  name: string;
  position: number;
  key: string;
  code: string;
  message: string;
}

/** One section of the prediction: the calls in order and every hook skipped with its reason. */
export interface LegacySectionReport {
  id: LegacySectionId;
  title: string;
  note: string;
  calls: LegacyCallReport[];
  skips: LegacySkipReport[];
}

/**
 * Which historical hooks one request would reach, section by section, and why each other one is
 * skipped — as the apiserver of their time matched them (v1beta1 defaults; external hooks on
 * their rules only). Sections without hooks are left out.
 */
export function predictLegacy(request: AdmissionRequest, c: CompiledLegacy): LegacySectionReport[] {
  if (c.empty) return [];
  const out: LegacySectionReport[] = [];
  const sections: Array<[LegacySectionId, CompiledSnapshot, "mutating" | "validating"]> = [
    ["v1beta1-mutating", c.v1beta1, "mutating"],
    ["v1beta1-validating", c.v1beta1, "validating"],
    ["external-admission-hooks", c.external, "validating"],
  ];
  const predictions = new Map<CompiledSnapshot, ReturnType<typeof predict>>();
  for (const [id, snapshot, type] of sections) {
    const hooks = type === "mutating" ? snapshot.mutating : snapshot.validating;
    if (hooks.length === 0) continue;
    let p = predictions.get(snapshot);
    if (!p) {
      p = predict(request, snapshot);
      predictions.set(snapshot, p);
    }
    const byKey = new Map(hooks.map((h) => [h.key, h]));
    const stage = type === "mutating" ? "mutating-webhook" : "validating-webhook";
    const external = id === "external-admission-hooks";
    const calls = p.prediction.calls
      .filter((x) => x.stage === stage)
      .map((x, order): LegacyCallReport => {
        const h = byKey.get(x.key);
        return {
          order,
          round: x.round,
          certainty: x.certainty,
          configuration: x.hook.configuration,
          name: x.hook.name,
          position: x.hook.position,
          key: x.key,
          failurePolicy: x.failurePolicy,
          matchPolicy: h?.match.matchPolicy ?? "Exact",
          timeoutSeconds: external ? null : x.timeoutSeconds,
          sideEffects: h?.sideEffects ?? "Unknown",
          reinvocationPolicy: x.reinvocationPolicy ?? null,
          matchedRule: x.matchedRule,
          converted: x.via.converted,
        };
      });
    const explainer = p.explainer;
    const skips = p.prediction.skips
      .filter((x) => x.stage === stage)
      .map((x): LegacySkipReport => ({
        configuration: x.hook.configuration,
        name: x.hook.name,
        position: x.hook.position,
        key: x.key,
        code: x.reason.code,
        message: explainer.skip(x).message,
      }));
    out.push({ id, ...LEGACY_SECTION_TEXT[id], calls, skips });
  }
  return out;
}
