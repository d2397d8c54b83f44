"use client";

import Link from "next/link";
import { Fragment, useMemo } from "react";
import {
  describeRequest,
  namespaceView,
  type NamespaceHookEntry,
} from "@/lib/admission/exemptions/exemption-views";
import { configurationHref, hookHref } from "@/lib/namespaces/links";
import { ErrorBox } from "@/components/ui/error-box";
import { useLiveMatrix } from "./use-live-matrix";
import { RequestPicker } from "./request-picker";
import { LiveIndicator } from "@/components/live/live-indicator";
import { useQuery } from "@tanstack/react-query";
import {
  LABEL_PREFIX,
  compareLevels,
  levelVersionString,
  policyToEvaluate,
} from "@/lib/admission/pod-security/labels";
import { defaultPolicy } from "@/lib/admission/pod-security/configuration";
import { admissionConfigQuery } from "@/lib/queries/overview";
import { DEFAULT_STATE, stateToQuery } from "@/lib/predict/page-state";

const STAGE: Record<string, string> = {
  "mutating-policy": "mutating policy",
  "mutating-webhook": "mutating webhook",
  "validating-policy": "validating policy",
  "validating-webhook": "validating webhook",
};

function HookRows({ entries, order }: { entries: NamespaceHookEntry[]; order: boolean }) {
  return (
    <table className="data">
      <thead>
        <tr>
          {order && <th className="num">#</th>}
          <th>Hook</th>
          <th>Configuration</th>
          <th>Stage</th>
          <th>Failure policy</th>
          <th className="num">Timeout</th>
          <th>Decided by</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e, i) => {
          const cfg = configurationHref(e.hook.hook);
          return (
            <tr key={`${e.hook.hook.source}/${e.hook.hook.key}`}>
              {order && <td className="num">{i + 1}</td>}
              <td>
                <Link href={hookHref(e.hook.hook)} prefetch={false}>
                  {e.hook.hook.name}
                </Link>
              </td>
              <td>
                {cfg ? (
                  <Link href={cfg} prefetch={false}>
                    {e.hook.hook.configuration}
                  </Link>
                ) : (
                  e.hook.hook.configuration
                )}
              </td>
              <td>{STAGE[e.hook.stage]}</td>
              <td className={e.hook.failurePolicy === "Fail" ? "bad" : undefined}>
                {e.hook.failurePolicy}
              </td>
              <td className="num">
                {e.hook.timeoutSeconds === undefined ? "—" : `${e.hook.timeoutSeconds}s`}
              </td>
              <td>
                <code>{e.why.requirement}</code> <span className="muted">{e.why.detail}</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Predict, opened on a plain pod created in the namespace. */
const podPredictHref = (namespace: string) =>
  `/predict?${stateToQuery({
    ...DEFAULT_STATE,
    object: `apiVersion: v1\nkind: Pod\nmetadata:\n  name: example\n  namespace: ${namespace}\nspec:\n  containers:\n  - name: app\n    image: nginx\n`,
  })}`;

/**
 * The Pod Security Standards the namespace's labels select for the in-tree PodSecurity plugin
 * (which runs after the mutating hooks and before the validating ones), and labels that do not
 * parse.
 */
function PodSecurityStandards({
  name,
  labels,
}: {
  name: string;
  labels: Readonly<Record<string, string>>;
}) {
  const admission = useQuery(admissionConfigQuery()).data;
  const config = admission?.podSecurity ?? undefined;
  const defaults = defaultPolicy(config);
  const { policy, errors } = policyToEvaluate(labels, defaults);
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, `${LABEL_PREFIX}${k}`);
  const defaultsFrom = config ? "the apiserver's PodSecurity configuration" : "built in";
  const modes = [
    ["Enforce", "enforce", policy.enforce, "pods that violate it are refused"],
    ["Warn", "warn", policy.warn, "the apiserver returns a warning"],
    ["Audit", "audit", policy.audit, "the audit event is annotated"],
  ] as const;
  const exempt = config?.exemptions.namespaces.includes(name) ?? false;
  return (
    <section className="panel" aria-label="Pod Security" data-testid="pod-security-standards">
      <h2>Pod Security</h2>
      {exempt && (
        <p className="alert" data-testid="pod-security-exempt">
          Namespace {name} is exempt from Pod Security in the apiserver&apos;s PodSecurity
          configuration: its pods and workloads are not evaluated, whatever its labels say.
        </p>
      )}
      <dl className="facts">
        {modes.map(([mode, key, lv, what]) => (
          <Fragment key={mode}>
            <dt>{mode}</dt>
            <dd data-testid={`pod-security-${key}`}>
              <span className="mono">{levelVersionString(lv)}</span>{" "}
              {lv.level === "privileged" ? (
                <span className="muted">nothing is checked</span>
              ) : (
                <span className="hint">{what}</span>
              )}{" "}
              <span className="hint">
                {has(key) || has(`${key}-version`)
                  ? "(from the labels)"
                  : key === "warn" &&
                      has("enforce") &&
                      compareLevels(policy.enforce.level, defaults.warn.level) > 0
                    ? "(follows enforce)"
                    : `(default, ${defaultsFrom})`}
              </span>
            </dd>
          </Fragment>
        ))}
      </dl>
      {errors.map((e) => (
        <p key={e.label} className="alert">
          Label {e.label}={e.value} does not parse ({e.message}): read as{" "}
          {e.label.endsWith("-version")
            ? "latest"
            : e.label.endsWith("/enforce")
              ? "restricted"
              : "privileged"}
          .
        </p>
      ))}
      <p className="hint" data-testid="pod-security-source">
        From the <code>pod-security.kubernetes.io/*</code> labels; a mode they do not set takes the
        cluster-wide default.{" "}
        {admission?.error ? (
          <span className="alert">The admission configuration is not read: {admission.error}</span>
        ) : config ? (
          <>
            Defaults and exemptions from <code>{config.source}</code>
            {config.exemptions.usernames.length + config.exemptions.runtimeClasses.length > 0
              ? ` (also exempt: ${[
                  ...config.exemptions.usernames.map((u) => `user ${u}`),
                  ...config.exemptions.runtimeClasses.map((r) => `RuntimeClass ${r}`),
                ].join(", ")})`
              : ""}
            .
          </>
        ) : (
          <>
            The apiserver&apos;s PodSecurity configuration was not given to the dashboard
            (PORTCULLIS_ADMISSION_CONFIG): the defaults shown are the built-in ones
            (privileged:latest), and exemptions are not known.
          </>
        )}{" "}
        <Link href={podPredictHref(name)} data-testid="pod-security-predict">
          Predict
        </Link>{" "}
        shows its verdict on a pod.
      </p>
    </section>
  );
}

/** One namespace: the hooks that intercept writes in it, in call order, and those that exempt it. */
export function NamespaceDetailPage({ name }: { name: string }) {
  const { params, setParams, state, request, matrix } = useLiveMatrix();
  const view = useMemo(() => {
    if (!matrix || !state.snapshot) return undefined;
    const labels = state.snapshot.namespaces?.[name];
    if (!labels) return null;
    return { labels, ...namespaceView(matrix, name, labels) };
  }, [matrix, state.snapshot, name]);
  return (
    <div className="stack">
      <div className="page-head">
        <h1>
          Namespace <span className="mono">{name}</span>
        </h1>
        <LiveIndicator {...state.live} />
        <span className="spacer" />
        <Link href={`/namespaces?ns=${encodeURIComponent(name)}`}>In the matrix</Link>
        <Link href="/deadlocks">Deadlock map</Link>
      </div>
      <div className="toolbar">
        <RequestPicker params={params} onChange={setParams} />
      </div>
      {state.error && <ErrorBox error={state.error} />}
      {view === undefined && <p className="muted">Reading the cluster…</p>}
      {view === null && (
        <p className="alert">
          Namespace {name} does not exist (or is not visible to this context).
        </p>
      )}
      {view && (
        <>
          <section className="panel">
            <h2>Labels</h2>
            {Object.entries(view.labels).map(([k, v]) => (
              <span key={k} className="chip">
                {k}={v}
              </span>
            ))}
          </section>
          <PodSecurityStandards name={name} labels={view.labels} />
          <section className="panel">
            <h2>
              Intercept {describeRequest(request)} here ({view.intercepting.length}), in call order
            </h2>
            {view.intercepting.length === 0 ? (
              <p className="muted">No hook intercepts this request here.</p>
            ) : (
              <HookRows entries={view.intercepting} order />
            )}
          </section>
          <section className="panel">
            <h2>Exempt this namespace ({view.exempting.length})</h2>
            {view.exempting.length === 0 ? (
              <p className="muted">No hook's selector exempts this namespace.</p>
            ) : (
              <HookRows entries={view.exempting} order={false} />
            )}
            <p className="hint">
              {view.notMatched} other hooks' rules do not match {describeRequest(request)}.
            </p>
          </section>
        </>
      )}
    </div>
  );
}
