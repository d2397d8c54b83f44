/**
 * The effective call order of webhook configurations for the order page and the detail page,
 * built on lib/admission (compile, order). Pure.
 */
import { compileSnapshot } from "@/lib/admission/compile";
import {
  effectiveOrder,
  planReinvocation,
  worstCaseLatency,
  type ReinvocationTrigger,
} from "@/lib/admission/order";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

export interface OrderEntry {
  key: string;
  stage: "mutating-webhook" | "validating-webhook";
  configuration: string;
  hook: string;
  /** Position inside its configuration. */
  position: number;
  /** Index in its stage (the order the apiserver calls mutating hooks in). */
  index: number;
  timeoutSeconds: number;
  reinvocationPolicy?: string;
}

export interface OrderModel {
  mutating: OrderEntry[];
  reinvocation: Array<{ entry: OrderEntry; trigger: ReinvocationTrigger }>;
  validating: OrderEntry[];
  /** Serial mutating time, both rounds, at every timeout. */
  mutatingSeconds: number;
  /** The slowest validating hook (they run in parallel). */
  validatingSeconds: number;
  worstCaseSeconds: number;
}

/** The order model of the given configurations. */
export function orderModel(
  mutating: readonly V1MutatingWebhookConfiguration[],
  validating: readonly V1ValidatingWebhookConfiguration[],
): OrderModel {
  const compiled = compileSnapshot({
    mutatingWebhookConfigurations: mutating,
    validatingWebhookConfigurations: validating,
  });
  const order = effectiveOrder(compiled);
  const toEntry = (o: (typeof order)[number]): OrderEntry => ({
    key: o.hook.key,
    stage: o.stage as OrderEntry["stage"],
    configuration: o.hook.configuration,
    hook: o.hook.name,
    position: o.hook.position,
    index: o.index,
    timeoutSeconds: o.timeoutSeconds,
    reinvocationPolicy: o.reinvocationPolicy,
  });
  const m = order.filter((o) => o.stage === "mutating-webhook").map(toEntry);
  const v = order.filter((o) => o.stage === "validating-webhook").map(toEntry);
  const byKey = new Map(m.map((e) => [e.key, e]));
  const plan = planReinvocation(
    m.map((e) => ({
      key: e.key,
      stage: "mutating-webhook" as const,
      reinvocationPolicy: e.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
      timeoutSeconds: e.timeoutSeconds,
    })),
  );
  const reinvocation = plan.flatMap((p) => {
    const entry = byKey.get(p.call.key);
    return entry ? [{ entry, trigger: p.trigger }] : [];
  });
  const mutatingTimeouts = [
    ...m.map((e) => e.timeoutSeconds),
    ...reinvocation.map((r) => r.entry.timeoutSeconds),
  ];
  const validatingTimeouts = v.map((e) => e.timeoutSeconds);
  return {
    mutating: m,
    reinvocation,
    validating: v,
    mutatingSeconds: worstCaseLatency(mutatingTimeouts, []),
    validatingSeconds: worstCaseLatency([], validatingTimeouts),
    worstCaseSeconds: worstCaseLatency(mutatingTimeouts, validatingTimeouts),
  };
}
