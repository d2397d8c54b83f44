"use client";

import Link from "next/link";
import {
  healthHref,
  healthRowId,
  hookDecisionsHref,
  policyDecisionsHref,
  policyHealthRowId,
} from "@/lib/health/links";
import { predictHref } from "@/lib/predict/links";
import { useMemo } from "react";
import { describeRequest, hookView } from "@/lib/admission/exemptions/exemption-views";
import {
  isPolicySource,
  type HookIdentity,
  type HookSourceKind,
} from "@/lib/admission/model/hook-identity";
import { configurationHref, namespaceHref } from "@/lib/namespaces/links";
import { hookColumnHref } from "@/lib/namespaces/matrix-params";
import { ErrorBox } from "@/components/ui/error-box";
import { useLiveMatrix } from "./use-live-matrix";
import { RequestPicker } from "./request-picker";
import { LiveIndicator } from "@/components/live/live-indicator";

const SHOWN = 200;

function Names({ names }: { names: string[] }) {
  return (
    <>
      {names.slice(0, SHOWN).map((n, i) => (
        <span key={n}>
          {i > 0 && ", "}
          <Link href={namespaceHref(n)} prefetch={false}>
            {n}
          </Link>
        </span>
      ))}
      {names.length > SHOWN && <span className="muted"> and {names.length - SHOWN} more</span>}
    </>
  );
}

/** The Health page's row of a webhook or policy binding. */
function hookHealthHref(h: HookIdentity): string {
  return healthHref(
    isPolicySource(h.source)
      ? policyHealthRowId(h.source, h.configuration, h.name)
      : healthRowId(h.source, h.configuration, h.position),
  );
}

/** One webhook or policy binding: the namespaces it covers and exempts, grouped by runlevel. */
export function HookNamespacesPage({
  source,
  configuration,
  name,
}: {
  source: HookSourceKind;
  configuration: string;
  name: string;
}) {
  const { params, setParams, state, request, matrix: m } = useLiveMatrix();
  const view = useMemo(() => {
    if (!m) return undefined;
    const h = m.hooks.findIndex(
      (x) =>
        x.hook.source === source && x.hook.configuration === configuration && x.hook.name === name,
    );
    const hook = m.hooks[h];
    if (!hook) return null;
    return { hook, groups: hookView(m, h), groupBy: m.groupBy };
  }, [m, source, configuration, name]);
  const cfg = configurationHref({ source, configuration });
  return (
    <div className="stack">
      <div className="page-head">
        <h1>
          <span className="mono">{name}</span>
        </h1>
        <span className="muted">
          {source} {cfg ? <Link href={cfg}>{configuration}</Link> : configuration}
        </span>
        <LiveIndicator {...state.live} />
        <span className="spacer" />
        <span className="links">
          <Link href={hookColumnHref({ source, configuration, name }, params)}>In the matrix</Link>
          {/* Initializers (1.7–1.13) leave no audit decisions or metrics; `for` names webhooks and policies. */}
          {source !== "InitializerConfiguration" ? (
            <>
              <Link
                href={
                  isPolicySource(source)
                    ? policyDecisionsHref(configuration, source)
                    : hookDecisionsHref(name, source)
                }
              >
                Decisions
              </Link>
              <Link href={predictHref({ source, configuration, name })}>Predict</Link>
              {view ? <Link href={hookHealthHref(view.hook.hook)}>Health</Link> : null}
            </>
          ) : null}
        </span>
      </div>
      <div className="toolbar">
        <RequestPicker params={params} onChange={setParams} />
      </div>
      {state.error && <ErrorBox error={state.error} />}
      {view === undefined && <p className="muted">Reading the cluster…</p>}
      {view === null && (
        <p className="alert">
          No such hook in this cluster: it may have been deleted or renamed. Find it in the{" "}
          <Link href="/webhooks">Webhooks</Link> or <Link href="/policies">Policies</Link> list.
        </p>
      )}
      {view && (
        <section className="panel">
          <h2>
            Namespaces for {describeRequest(request)} · failurePolicy {view.hook.failurePolicy}
            {view.hook.timeoutSeconds !== undefined && ` · timeout ${view.hook.timeoutSeconds}s`}
          </h2>
          {!view.hook.applies ? (
            <p className="muted">This hook's rules do not match {describeRequest(request)}.</p>
          ) : (
            <table className="data">
              <thead>
                <tr>
                  <th>{view.groupBy}</th>
                  <th className="num">Covered</th>
                  <th>Covered namespaces</th>
                  <th className="num">Exempt</th>
                  <th>Exempt namespaces</th>
                </tr>
              </thead>
              <tbody>
                {view.groups.map((g) => (
                  <tr key={g.value ?? "\u0000"}>
                    <td>{g.value ?? <span className="muted">no label</span>}</td>
                    <td className="num">{g.covered.length}</td>
                    <td>
                      <Names names={g.covered} />
                    </td>
                    <td className="num">{g.exempt.length}</td>
                    <td>
                      <Names names={g.exempt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {view.hook.conditional && (
            <p className="hint">
              An objectSelector, matchConditions or resourceNames can still skip individual objects
              in the covered namespaces.
            </p>
          )}
        </section>
      )}
    </div>
  );
}
