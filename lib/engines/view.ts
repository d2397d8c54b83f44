/** The Engines page's pure parts: names, links between engine policies and what carries them. */
import type { EngineSourcePolicy } from "@/lib/admission/engines/sources";
import type { EngineName, OwnedKind, SourcePolicyRef } from "@/lib/admission/engines/types";
import { healthHref, healthRowId } from "@/lib/health/links";

const LABEL: Record<EngineName, string> = {
  gatekeeper: "Gatekeeper",
  kyverno: "Kyverno",
  kubewarden: "Kubewarden",
};

export function engineLabel(e: EngineName): string {
  return LABEL[e];
}

const RESOURCE: Record<OwnedKind, string> = {
  ValidatingWebhookConfiguration: "/webhooks/validatingwebhookconfigurations",
  MutatingWebhookConfiguration: "/webhooks/mutatingwebhookconfigurations",
  ValidatingAdmissionPolicy: "/policies/validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "/policies/validatingadmissionpolicybindings",
  MutatingAdmissionPolicy: "/policies/mutatingadmissionpolicies",
  MutatingAdmissionPolicyBinding: "/policies/mutatingadmissionpolicybindings",
};

/** The dashboard page of an owned configuration, policy or binding. */
export function ownedPageHref(kind: OwnedKind, name: string): string {
  return `${RESOURCE[kind]}/${encodeURIComponent(name)}`;
}

/** The Health page's row of a hook. */
export function hookHealthHref(h: {
  source: string;
  configuration: string;
  index: number;
}): string {
  return healthHref(healthRowId(h.source, h.configuration, h.index));
}

/** The id of a source policy's row on the Engines page. */
export function sourceAnchor(ref: SourcePolicyRef): string {
  return `engine-${ref.engine}-${ref.kind}-${ref.namespace ?? ""}-${ref.name}`.replace(
    /[^A-Za-z0-9_.-]/g,
    "-",
  );
}

/** Where a source policy is shown: its row on the Engines page. */
export function enginesPageHref(ref: SourcePolicyRef): string {
  return `/engines#${sourceAnchor(ref)}`;
}

/** A source's enforcement in a few words. */
export function sourceDetails(s: EngineSourcePolicy): string {
  switch (s.type) {
    case "gatekeeper-template":
      return `creates ${s.constraintKind}${s.hasCel ? " · CEL" : ""}${s.errors.length > 0 ? ` · ${s.errors.length} errors` : ""}`;
    case "gatekeeper-constraint": {
      const v = s.totalViolations === undefined ? "" : ` · ${s.totalViolations} violations`;
      return `${s.enforcementAction}${v}`;
    }
    case "kyverno-policy":
      return `${s.validationFailureAction} · admission ${s.admission ? "on" : "off"} · ${s.failurePolicy}`;
    case "kyverno-cel-policy":
      return `${s.validationActions.join(", ") || "—"} · admission ${s.admission ? "on" : "off"} · ${s.failurePolicy}`;
    case "kubewarden-policy":
      return `${s.mode} · timeout ${s.timeoutSeconds} s${s.timeoutEvalSeconds !== undefined ? ` · evaluation ${s.timeoutEvalSeconds} s` : ""} · ${s.failurePolicy}`;
  }
}

/** Whether the source was turned into an admission policy, and why not. */
export function sourceGeneration(
  s: EngineSourcePolicy,
): { generated: boolean; message?: string } | undefined {
  switch (s.type) {
    case "gatekeeper-template": {
      if (!s.hasCel) return undefined;
      const error = s.vapGeneration.find((g) => g.state !== "generated");
      if (error) return { generated: false, message: error.warning ?? error.state };
      if (s.vapGeneration.length > 0)
        return {
          generated: true,
          ...(s.vapGeneration[0]?.warning ? { message: s.vapGeneration[0].warning } : {}),
        };
      return s.generateVAP === false
        ? { generated: false, message: "generateVAP: false" }
        : undefined;
    }
    case "kyverno-policy":
    case "kyverno-cel-policy":
      return s.generation;
    default:
      return undefined;
  }
}
