"use client";

import Link from "next/link";
import { StaticBadge } from "@/components/outside-api/static-badge";
import { useState } from "react";
import type {
  CallReport,
  HookRef,
  PodSecurityReport,
  PredictReport,
  SkipReport,
} from "@/lib/admission/report/predict-report";
import type { PagePrediction } from "@/lib/predict/page-request";
import { isTarget, type HookTarget } from "@/lib/predict/links";
import { LegacySections } from "./legacy-sections";
import { describeSource, sourceKey } from "@/lib/admission/engines/types";
import { engineLabel, enginesPageHref } from "@/lib/engines/view";

const STAGE: Record<string, string> = {
  initializer: "Initializer",
  "mutating-policy": "Mutating policy",
  "mutating-webhook": "Mutating webhook",
  "validating-policy": "Validating policy",
  "validating-webhook": "Validating webhook",
};

const RESOURCE: Partial<Record<HookRef["source"], string>> = {
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
};

const SKIP_TITLE: Record<string, string> = {
  rules: "No rule matches",
  "exclude-rule": "Excluded by excludeResourceRules",
  "namespace-selector": "namespaceSelector does not match",
  "object-selector": "objectSelector does not match",
  "match-condition-false": "A matchCondition is false",
  "match-condition-error-ignored": "matchConditions failed, failurePolicy Ignore",
  "configuration-error-ignored": "Configuration error, failurePolicy Ignore",
  binding: "The binding's matchResources exclude it",
  "policy-missing": "The binding's policy does not exist",
  "params-not-found": "No param object found (parameterNotFoundAction Allow)",
  excluded: "Never sent to admission hooks",
  "not-reached": "Not reached: the request was already rejected",
  "match-failed": "Not called: another validating webhook's match failed",
};

/** Link to a hook's detail (and its editor), or its name when it has no page. */
function HookName({ hook }: { hook: HookRef }) {
  const resource = RESOURCE[hook.source];
  const label = hook.source.endsWith("Policy") ? `${hook.configuration} ← ${hook.name}` : hook.name;
  if (!resource)
    return (
      <span className="mono" title={hook.source}>
        {label} <StaticBadge origin={hook.origin} />
      </span>
    );
  const base = `/webhooks/${resource}/${encodeURIComponent(hook.configuration)}`;
  return (
    <span className="hook-name">
      <Link className="mono" href={`${base}#hook-${hook.position}`}>
        {hook.name}
      </Link>{" "}
      <StaticBadge origin={hook.origin} />
      <span className="hint">
        in {hook.configuration}
        {hook.origin ? null : (
          <>
            {" · "}
            <Link href={`${base}/edit`} aria-label={`Edit ${hook.configuration}`}>
              edit
            </Link>
          </>
        )}
      </span>
    </span>
  );
}

/** What happens when the hook fails or times out. */
function onFailure(c: CallReport): string {
  const webhook = c.stage.endsWith("webhook");
  if (!webhook) {
    if (c.failurePolicy !== "Fail") return "errors are ignored; the request continues";
    // A validating policy's evaluation error is a decision its validationActions act on.
    if (c.stage === "validating-policy" && !c.validationActions?.includes("Deny"))
      return `a configuration error rejects the request; an evaluation error is ${c.validationActions?.includes("Warn") ? "a warning" : "an audit annotation"}`;
    return "an evaluation or configuration error rejects the request";
  }
  return c.failurePolicy === "Fail"
    ? `an error or no answer within ${c.timeoutSeconds}s rejects the request`
    : `an error or no answer within ${c.timeoutSeconds}s is ignored (fail-open)`;
}

/** Whether a row is the hook the page was opened for (see lib/predict/links.ts). */
function isFocus(hook: HookRef, focus: HookTarget | undefined): boolean {
  return focus !== undefined && isTarget(hook, focus);
}

/** The policy engine behind a called hook or policy, and the engine policy it carries. */
function EngineOwner({ owner }: { owner: CallReport["owner"] }) {
  if (!owner) return null;
  const sources = owner.sourcePolicies ?? (owner.sourcePolicy ? [owner.sourcePolicy] : []);
  return (
    <div className="hint" data-testid="call-owner">
      <Link href="/engines">{engineLabel(owner.engine)}</Link>
      {sources.map((s) => (
        <span key={sourceKey(s)}>
          {" · "}
          <Link href={enginesPageHref(s)}>{describeSource(s)}</Link>
        </span>
      ))}
      {owner.certainty === "guess" ? " (a guess from its name)" : null}
    </div>
  );
}

function CallRow({ c, n, focus }: { c: CallReport; n: number; focus?: HookTarget }) {
  return (
    <tr
      className={isFocus(c.hook, focus) ? "focus" : undefined}
      data-focus={isFocus(c.hook, focus) || undefined}
      data-testid="call"
      data-key={c.key}
      data-hook={c.hook.name}
      data-round={c.round}
      data-stage={c.stage}
    >
      <td className="num">{n}</td>
      <td>
        {STAGE[c.stage] ?? c.stage}
        {c.round === 1 ? <span className="badge pref">round 1</span> : null}
        {c.parallel ? <span className="badge">parallel</span> : null}
      </td>
      <td>
        <HookName hook={c.hook} />
        <EngineOwner owner={c.owner} />
        {c.round === 1 && c.reinvocation ? (
          <div className="hint">
            possible:{" "}
            {c.reinvocation.kind === "later-mutator"
              ? `called again if a later hook (${c.reinvocation.after?.length ?? 0}) changes the object`
              : "called again only if round 1 changes the object"}
          </div>
        ) : null}
        {c.converted ? (
          <div className="hint">
            sees {c.via.group || "core"}/{c.via.version}/{c.via.resource} (matchPolicy Equivalent)
          </div>
        ) : null}
        {c.paramsNote ? <div className="hint">{c.paramsNote}</div> : null}
        {c.conditionError ? (
          <div className="hint" data-testid="condition-error">
            matchConditions fail to evaluate; the decision is that error: {c.conditionError}
          </div>
        ) : null}
        {c.validationActions?.length ? (
          <div className="hint">validationActions: {c.validationActions.join(", ")}</div>
        ) : null}
      </td>
      <td>
        <span className={c.failurePolicy === "Fail" ? "fp bad" : "fp"}>{c.failurePolicy}</span>
      </td>
      <td className="num">{c.stage.endsWith("webhook") ? `${c.timeoutSeconds}s` : "—"}</td>
      <td className="hint">{onFailure(c)}</td>
    </tr>
  );
}

const ROWS_PER_GROUP = 25;

function SkipGroup({
  code,
  skips,
  focus,
}: {
  code: string;
  skips: SkipReport[];
  focus?: HookTarget;
}) {
  const [all, setAll] = useState(false);
  // The marked hook first, and its group open, so it is in sight.
  const marked = skips.filter((x) => isFocus(x.hook, focus));
  const ordered = marked.length ? [...marked, ...skips.filter((x) => !marked.includes(x))] : skips;
  const shown = all ? ordered : ordered.slice(0, ROWS_PER_GROUP);
  return (
    <details
      className="skip-group"
      open={code !== "rules" || marked.length > 0}
      data-testid={`skips-${code}`}
    >
      <summary>
        {SKIP_TITLE[code] ?? code} <span className="badge">{skips.length}</span>
      </summary>
      <ul className="findings">
        {shown.map((s) => (
          <li
            key={`${s.stage}/${s.key}`}
            className={isFocus(s.hook, focus) ? "focus" : undefined}
            data-focus={isFocus(s.hook, focus) || undefined}
            data-testid="skip"
            data-key={s.key}
            data-hook={s.hook.name}
            data-code={s.code}
          >
            <HookName hook={s.hook} /> <span className="hint">({STAGE[s.stage]})</span>
            <div className="msg">{s.message}</div>
          </li>
        ))}
      </ul>
      {skips.length > shown.length ? (
        <button type="button" className="button" onClick={() => setAll(true)}>
          Show all {skips.length}
        </button>
      ) : null}
    </details>
  );
}

function groupSkips(skips: readonly SkipReport[]): Array<[string, SkipReport[]]> {
  const m = new Map<string, SkipReport[]>();
  for (const s of skips) {
    const list = m.get(s.code);
    if (list) list.push(s);
    else m.set(s.code, [s]);
  }
  // Reasons that say something about this request first; "no rule matches" last.
  return [...m.entries()].sort(
    (a, b) => Number(a[0] === "rules") - Number(b[0] === "rules") || b[1].length - a[1].length,
  );
}

function Summary({ r }: { r: PredictReport }) {
  const round0 = r.calls.filter((c) => c.round === 0).length;
  const round1 = r.calls.length - round0;
  return (
    <section className="panel" aria-label="Answer" data-testid="answer">
      <h2>
        {r.rejectedBeforeHooks?.plugin === "routing" ? (
          <span className="bad" data-testid="verdict">
            Refused before admission
          </span>
        ) : r.neverSent ? (
          <span className="bad" data-testid="verdict">
            Never admitted as {r.request.operation}
          </span>
        ) : r.failure || r.rejectedBeforeHooks ? (
          <span className="bad" data-testid="verdict">
            Rejected by admission
          </span>
        ) : r.podSecurity?.rejects ? (
          <span className="bad" data-testid="verdict">
            Refused by PodSecurity
          </span>
        ) : (
          <span className="good" data-testid="verdict">
            Admitted as far as matching decides
          </span>
        )}
      </h2>
      {r.rejectedBeforeHooks ? (
        <p className="alert" data-testid="predicted-failure">
          {r.rejectedBeforeHooks.status}: {r.rejectedBeforeHooks.message}{" "}
          <span className="hint">
            {r.rejectedBeforeHooks.plugin === "routing"
              ? "(the apiserver's router: no route serves this method on the resource, so the request never reaches admission)"
              : `(${r.rejectedBeforeHooks.plugin}, before any policy or webhook is consulted)`}
          </span>
        </p>
      ) : r.failure ? (
        <>
          <p className="alert" data-testid="predicted-failure">
            {r.failure.status}: {r.failure.message}
          </p>
          <EngineOwner owner={r.failure.owner} />
          {r.alsoFailing.length > 0 ? (
            <details className="hint" data-testid="also-failing">
              <summary>
                {r.alsoFailing.length} more failing binding{r.alsoFailing.length === 1 ? "" : "s"}{" "}
                in this stage: the apiserver evaluates them all, in no fixed order, and names one
              </summary>
              <ul>
                {r.alsoFailing.map((f) => (
                  <li key={f.key}>
                    {f.status}: {f.message}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </>
      ) : r.podSecurity?.rejects && r.podSecurity.rejection ? (
        <p className="alert" data-testid="predicted-failure">
          {r.podSecurity.rejection.status}: {r.podSecurity.rejection.message}{" "}
          <span className="hint">
            (the PodSecurity admission plugin, after the mutating hooks and before any validating
            policy or webhook)
          </span>
        </p>
      ) : r.neverSent ? (
        <p className="hint">No request to this resource is admitted as this operation.</p>
      ) : (
        <p className="hint">
          The hooks below are called; any of them may still deny or change the request.
        </p>
      )}
      <dl className="facts">
        <dt>Request</dt>
        <dd className="mono" data-testid="request-line">
          {r.request.operation} {r.request.group || "core"}/{r.request.version}/{r.request.resource}
          {r.request.subresource ? `/${r.request.subresource}` : ""}
          {r.request.namespace ? ` in ${r.request.namespace}` : ""}
          {r.request.name ? ` named ${r.request.name}` : ""}
          {r.request.dryRun ? " (dry run)" : ""}
        </dd>
        <dt>As</dt>
        <dd className="mono" data-testid="request-user">
          {r.request.userInfo.username}{" "}
          <span className="hint">groups {r.request.userInfo.groups.join(", ") || "none"}</span>
        </dd>
        <dt>Calls</dt>
        <dd data-testid="call-count">
          {round0} certain{round1 ? `, ${round1} possible in the reinvocation round` : ""}
        </dd>
        <dt>Not called</dt>
        <dd>{r.skips.length}</dd>
        {r.indeterminate.length ? (
          <>
            <dt>Undecided</dt>
            <dd className="warn">{r.indeterminate.length}</dd>
          </>
        ) : null}
        {r.calls.some((c) => c.stage === "initializer") ? (
          <>
            <dt>metadata.initializers.pending</dt>
            <dd className="mono" data-testid="initializers">
              {r.calls
                .filter((c) => c.stage === "initializer")
                .map((c) => c.hook.name)
                .join(", ")}
            </dd>
          </>
        ) : null}
        <dt>Worst-case added latency</dt>
        <dd data-testid="latency">
          {r.worstCaseLatencySeconds}s{" "}
          <span className="hint">
            mutating timeouts in series (reinvocation included) + the longest validating timeout
          </span>
        </dd>
      </dl>
      {r.exclusions.webhooks || r.exclusions.policies ? (
        <p className="hint" data-testid="exclusions">
          {r.exclusions.webhooks && r.exclusions.webhooks === r.exclusions.policies
            ? `Webhooks and policies: ${r.exclusions.webhooks}.`
            : `${r.exclusions.webhooks ? `Webhooks: ${r.exclusions.webhooks}. ` : ""}${r.exclusions.policies ? `Policies: ${r.exclusions.policies}.` : ""}`}
        </p>
      ) : null}
      {r.notices.length ? (
        <ul className="hint" aria-label="Notices">
          {r.notices.map((n) => (
            <li key={n.message}>{n.message}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

const SUBJECT: Record<PodSecurityReport["subject"], string> = {
  pod: "the pod",
  "pod-template": "the pod template (warnings and audit only: a template is never refused)",
  namespace: "the namespace's Pod Security labels",
};

/**
 * What the PodSecurity admission plugin does with the request: the standards the namespace's
 * labels select, its verdict, warnings and audit annotations.
 */
function PodSecurityPanel({ ps }: { ps: PodSecurityReport }) {
  return (
    <section className="panel" aria-label="PodSecurity" data-testid="pod-security">
      <h2>PodSecurity</h2>
      <p className="hint">
        The in-tree PodSecurity plugin runs after the mutating hooks and before the validating ones;
        it evaluates {SUBJECT[ps.subject]}. Standards from the namespace&apos;s labels, and for the
        modes they do not set, the defaults of the apiserver&apos;s PodSecurity configuration.
      </p>
      {ps.assumption ? (
        <p className="hint" data-testid="pod-security-assumption">
          This verdict {ps.assumption}.
        </p>
      ) : null}
      <dl className="facts">
        <dt>Enforce</dt>
        <dd className="mono">{ps.enforce}</dd>
        <dt>Warn</dt>
        <dd className="mono">{ps.warn}</dd>
        <dt>Audit</dt>
        <dd className="mono">{ps.audit}</dd>
        {ps.exemption ? (
          <>
            <dt>Exempt</dt>
            <dd data-testid="pod-security-exemption">{ps.exemption.message}</dd>
          </>
        ) : null}
        <dt>Verdict</dt>
        <dd data-testid="pod-security-verdict">
          {ps.rejection ? (
            <span className={ps.rejects ? "bad" : "warn"}>
              {ps.rejects ? "Refused" : "Refused as submitted"}: {ps.rejection.status}{" "}
              {ps.rejection.message}
            </span>
          ) : (
            <span className="good">Allowed</span>
          )}
          {ps.undecided ? <div className="hint">Not certain: {ps.undecided}.</div> : null}
        </dd>
        {ps.warnings.length ? (
          <>
            <dt>Warnings</dt>
            <dd data-testid="pod-security-warnings">
              {ps.warnings.map((w) => (
                <div key={w} className="warn">
                  {w}
                </div>
              ))}
            </dd>
          </>
        ) : null}
        {ps.labelErrors.length ? (
          <>
            <dt>Labels</dt>
            <dd>
              {ps.labelErrors.map((e) => (
                <div key={e} className="warn">
                  {e}
                </div>
              ))}
            </dd>
          </>
        ) : null}
        {Object.keys(ps.auditAnnotations).length ? (
          <>
            <dt>Audit annotations</dt>
            <dd className="mono">
              {Object.entries(ps.auditAnnotations).map(([k, v]) => (
                <div key={k}>
                  {k}: {v}
                </div>
              ))}
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

/**
 * The prediction: summary, ordered calls, undecided hooks, and every hook not called with why;
 * `focus` marks the hook the page was opened for, wherever it is listed.
 */
export function PredictionView({ result, focus }: { result: PagePrediction; focus?: HookTarget }) {
  if (!result.ok)
    return (
      <section className="panel" aria-label="Answer">
        <p className="muted">No prediction until the request is complete (see the form).</p>
      </section>
    );
  const r = result.report;
  const stages = [
    [
      "Mutating policies and webhooks — serial, in this order",
      (c: CallReport) => c.round === 0 && c.stage.startsWith("mutating"),
    ],
    ["Reinvocation round — only if something changed the object", (c: CallReport) => c.round === 1],
    [
      "Validating policies and webhooks — one parallel stage",
      (c: CallReport) => c.stage.startsWith("validating"),
    ],
    ["Initializers", (c: CallReport) => c.stage === "initializer"],
  ] as const;
  let n = 0;
  return (
    <div className="stack">
      <Summary r={r} />
      <section className="panel" aria-label="Calls">
        <h2>Calls</h2>
        {r.calls.length === 0 ? <p className="muted">No hook or policy is called.</p> : null}
        {stages.map(([title, pick]) => {
          const calls = r.calls.filter(pick);
          if (calls.length === 0) return null;
          return (
            <table className="data calls" key={title} aria-label={title}>
              <caption>{title}</caption>
              <thead>
                <tr>
                  <th className="num">#</th>
                  <th>Stage</th>
                  <th>Hook</th>
                  <th>Failure policy</th>
                  <th className="num">Timeout</th>
                  <th>If it fails or times out</th>
                </tr>
              </thead>
              <tbody>
                {calls.map((c) => (
                  <CallRow key={`${c.round}/${c.key}`} c={c} n={++n} focus={focus} />
                ))}
              </tbody>
            </table>
          );
        })}
      </section>
      {r.podSecurity ? <PodSecurityPanel ps={r.podSecurity} /> : null}
      {r.indeterminate.length ? (
        <section className="panel" aria-label="Undecided">
          <h2>Cannot be decided here</h2>
          <ul className="findings">
            {r.indeterminate.map((x) => (
              <li key={x.key} data-testid="undecided" data-key={x.key}>
                <HookName hook={x.hook} /> <div className="msg">{x.message}</div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section className="panel" aria-label="Not called">
        <h2>Not called</h2>
        {r.skips.length === 0 ? <p className="muted">Every hook is called.</p> : null}
        {groupSkips(r.skips).map(([code, skips]) => (
          <SkipGroup key={code} code={code} skips={skips} focus={focus} />
        ))}
      </section>
      <LegacySections sections={r.legacy} />
    </div>
  );
}
