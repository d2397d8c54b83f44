/**
 * The historical webhook kinds in Predict, pure: v1beta1 Mutating/ValidatingWebhookConfiguration
 * (1.9–1.21) and ExternalAdmissionHookConfiguration (1.7–1.8) — which of them a request would
 * reach and why the others are skipped, each kind in its own section (their settings and order:
 * lib/admission/historical/legacy-order.ts). Reference §1.2, §6.2, §6.3.
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
import { compileSnapshot } from "../matching/compile";
import type { CompiledSnapshot } from "../matching/compiled";
import { predict } from "../prediction/predict";
import type { AdmissionRequest } from "../model/request";
import type { AdmissionSnapshot, V1beta1WebhookConfiguration } from "../model/snapshot";
import {
  externalAsValidating,
  LEGACY_SECTION_TEXT,
  V1BETA1_API_VERSION,
  type LegacySectionId,
} from "./legacy-order";

/** The three kinds' hooks, each compiled as the apiserver of its time defaulted them. */
export interface CompiledLegacy {
  /** v1beta1 webhook configurations (mutating and validating). */
  readonly v1beta1: CompiledSnapshot;
  /** External admission hooks, as the validating webhooks they became in 1.9. */
  readonly external: CompiledSnapshot;
  /** True when there is nothing to show. */
  readonly empty: boolean;
}

/**
 * Forces the v1beta1 defaults whatever group the objects were read from. compileSnapshot reads
 * every field defensively and defaults what v1beta1 left optional (compile.ts).
 */
function asV1beta1<T>(xs: readonly V1beta1WebhookConfiguration[]): T[] {
  return xs.map((x) => ({ ...x, apiVersion: V1BETA1_API_VERSION }) as unknown as T);
}

/** Compiles the historical hooks of a snapshot (its namespaces and discovery shared). */
export function compileLegacy(s: AdmissionSnapshot): CompiledLegacy {
  const base = {
    namespaces: s.namespaces,
    terminatingNamespaces: s.terminatingNamespaces,
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

// ---------------------------------------------------------------- prediction

/** A historical hook the request reaches. */
interface LegacyCallReport {
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
interface LegacySkipReport {
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
