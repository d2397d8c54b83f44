import Link from "next/link";
import type { ReactNode } from "react";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type { HookLike } from "@/lib/webhooks/summary";
import type { HookDetails } from "@/lib/api/webhooks";
import type { OrderEntry } from "@/lib/webhooks/order-view";
import { RuleTable } from "./rule-table";
import { SelectorChips } from "./selector-chips";
import { MatchConditions } from "./match-conditions";
import { BackendFacts } from "./backend-facts";
import { CaFacts } from "./ca-facts";
import { HookFindings } from "./hook-findings";
import type { WebhookDefaults } from "@/lib/admission/model/webhook-defaults";
import { Val } from "@/components/ui/default-value";

/** Everything about one hook of a configuration. */
export function HookPanel({
  hook,
  position,
  mutating,
  defaults,
  details,
  findings,
  order,
  stageSize,
  exemptionsHref,
  health,
  provenance,
}: {
  hook: HookLike;
  position: number;
  mutating: boolean;
  /** The defaults of the configuration's API version. */
  defaults: WebhookDefaults;
  details: HookDetails | undefined;
  findings: LintFinding[] | undefined;
  order: OrderEntry | undefined;
  stageSize: number;
  /** The per-hook page: namespaces this hook covers and exempts. */
  exemptionsHref?: string;
  /** The hook's health card (components/health), shown first. */
  health?: ReactNode;
  /** Who wrote each of the hook's fields and terms (HookProvenance). */
  provenance?: ReactNode;
}) {
  return (
    <section className="panel hook-panel" id={`hook-${position}`} aria-label={`Hook ${hook.name}`}>
      <h2>
        <span className="muted nowrap">#{position}</span>
        <span className="mono">{hook.name}</span>
        <span className="hint">
          {order
            ? mutating
              ? `called ${order.index + 1} of ${stageSize} mutating hooks (serial)`
              : `one of ${stageSize} validating hooks, called in parallel`
            : ""}
        </span>
      </h2>
      {health}
      <dl className="facts">
        <dt>failurePolicy</dt>
        <dd>
          <Val v={hook.failurePolicy} dflt={defaults.failurePolicy} />
        </dd>
        <dt>timeoutSeconds</dt>
        <dd>
          <Val v={hook.timeoutSeconds} dflt={defaults.timeoutSeconds} />
        </dd>
        <dt>sideEffects</dt>
        <dd>
          <Val v={hook.sideEffects} dflt={defaults.sideEffects} />
        </dd>
        <dt>matchPolicy</dt>
        <dd>
          <Val v={hook.matchPolicy} dflt={defaults.matchPolicy} />
        </dd>
        {mutating ? (
          <>
            <dt>reinvocationPolicy</dt>
            <dd>
              <Val v={hook.reinvocationPolicy} dflt={defaults.reinvocationPolicy} />
            </dd>
          </>
        ) : null}
        <dt>admissionReviewVersions</dt>
        <dd className="mono">{(hook.admissionReviewVersions ?? []).join(", ")}</dd>
      </dl>
      <h3>Rules</h3>
      <RuleTable rules={hook.rules} />
      <h3>Selectors</h3>
      <SelectorChips
        label="namespaceSelector"
        selector={hook.namespaceSelector}
        subject="namespace"
      />
      {exemptionsHref ? (
        <p className="hint">
          <Link href={exemptionsHref}>Namespaces this hook covers and exempts, by runlevel</Link>
        </p>
      ) : null}
      <SelectorChips label="objectSelector" selector={hook.objectSelector} subject="object" />
      <h3>matchConditions</h3>
      <MatchConditions conditions={hook.matchConditions} />
      <div className="cols">
        <div>
          <h3>Backend</h3>
          <BackendFacts backend={details?.backend} />
        </div>
        <div>
          <h3>CA bundle</h3>
          <CaFacts ca={details?.ca} />
        </div>
      </div>
      <h3>Findings</h3>
      <HookFindings findings={findings} />
      {provenance ? (
        <>
          <h3>Provenance</h3>
          {provenance}
        </>
      ) : null}
    </section>
  );
}
