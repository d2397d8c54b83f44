"use client";

import Link from "next/link";
import { useState, useSyncExternalStore } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { ErrorBox } from "@/components/ui/error-box";
import { enginesQuery } from "@/lib/queries/engines";
import type {
  EngineDecisionCounts,
  EngineHookRow,
  EnginePolicyRow,
  EngineReport,
  EnginesData,
} from "@/lib/api/engines";
import type { Carrier, SourcePolicyLinks } from "@/lib/admission/engines/joins";
import { describeSource, sourceKey, type EngineOwnership } from "@/lib/admission/engines/types";
import {
  engineLabel,
  hookHealthHref,
  ownedPageHref,
  sourceAnchor,
  sourceDetails,
  sourceGeneration,
} from "@/lib/engines/view";
import { hookDecisionsHref, policyDecisionsHref } from "@/lib/health/links";
import { HookFindings } from "@/components/webhooks/hook-findings";

function Certainty({ o }: { o: EngineOwnership }) {
  return (
    <span
      className={`badge ${o.certainty === "guess" ? "warn" : ""}`}
      title={o.evidence.join("\n")}
      data-testid="certainty"
    >
      {o.certainty === "proof" ? "proof" : o.certainty === "strong" ? "marked" : "guess"}
    </span>
  );
}

function Decisions({ d, href }: { d: EngineDecisionCounts | undefined; href: string }) {
  if (!d) return <span className="muted">—</span>;
  return (
    <Link href={href}>
      {d.total}
      {d.refused > 0 ? <span className="muted"> · {d.refused} refused</span> : null}
      {d.failures > 0 ? <span className="bad"> · {d.failures} failed</span> : null}
    </Link>
  );
}

function SourceLinks({ o }: { o: EngineOwnership }) {
  if (o.sources.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {o.sources.map((s) => (
        <div key={sourceKey(s)}>
          <a href={`#${sourceAnchor(s)}`} className="mono">
            {describeSource(s)}
          </a>
        </div>
      ))}
    </>
  );
}

function subscribeHash(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}

const readHash = () => window.location.hash;

/** Rows a table shows before "Show all" (an engine may own thousands of objects). */
const FIRST_ROWS = 100;

/**
 * The first FIRST_ROWS of `rows`, all of them once asked for or when the URL's hash names a row
 * of this page (a link to one source policy).
 */
function useFirstRows<T>(rows: readonly T[]): {
  shown: readonly T[];
  more: React.ReactNode;
} {
  const [asked, setAll] = useState(false);
  const hash = useSyncExternalStore(subscribeHash, readHash, () => "");
  const all = asked || hash.startsWith("#engine-");
  if (all || rows.length <= FIRST_ROWS) return { shown: rows, more: null };
  return {
    shown: rows.slice(0, FIRST_ROWS),
    more: (
      <p>
        <button type="button" onClick={() => setAll(true)}>
          Show all {rows.length}
        </button>
      </p>
    ),
  };
}

function HooksTable({ hooks }: { hooks: readonly EngineHookRow[] }) {
  const { shown, more } = useFirstRows(hooks);
  return (
    <>
      <table className="data" aria-label="Hooks">
        <thead>
          <tr>
            <th scope="col">Configuration · hook</th>
            <th scope="col">Failure</th>
            <th scope="col" className="num">
              Timeout
            </th>
            <th scope="col">Call order</th>
            <th scope="col">Owner</th>
            <th scope="col">Carries</th>
            <th scope="col" className="num">
              Decisions (15 min)
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((h) => (
            <tr key={`${h.source}/${h.configuration}/${h.index}`}>
              <td>
                <span className="muted">{h.source.replace("WebhookConfiguration", "")}</span>{" "}
                <Link href={ownedPageHref(h.source, h.configuration)}>{h.configuration}</Link>
                <div className="mono">{h.hook}</div>
                <div className="links">
                  <Link href={hookHealthHref(h)}>health</Link>
                </div>
              </td>
              <td>{h.failurePolicy}</td>
              <td className="num">{h.timeoutSeconds} s</td>
              <td>
                {h.order ? (
                  <Link href="/webhooks/order">
                    {h.order.stage} {h.order.position} of {h.order.of}
                  </Link>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td>
                <Certainty o={h.ownership} />
              </td>
              <td>
                <SourceLinks o={h.ownership} />
              </td>
              <td className="num">
                <Decisions d={h.decisions} href={hookDecisionsHref(h.hook, h.source)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {more}
    </>
  );
}

function PoliciesTable({ policies }: { policies: readonly EnginePolicyRow[] }) {
  const { shown, more } = useFirstRows(policies);
  return (
    <>
      <table className="data" aria-label="Generated admission policies">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Name</th>
            <th scope="col">Owner</th>
            <th scope="col">Carries</th>
            <th scope="col" className="num">
              Decisions (15 min)
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((p) => (
            <tr key={`${p.kind}/${p.name}`}>
              <td className="muted">{p.kind}</td>
              <td>
                <Link className="mono" href={ownedPageHref(p.kind, p.name)}>
                  {p.name}
                </Link>
                {p.policyName ? (
                  <div className="hint">
                    binds{" "}
                    <Link
                      href={ownedPageHref(
                        p.kind.startsWith("Mutating")
                          ? "MutatingAdmissionPolicy"
                          : "ValidatingAdmissionPolicy",
                        p.policyName,
                      )}
                    >
                      {p.policyName}
                    </Link>
                  </div>
                ) : null}
              </td>
              <td>
                <Certainty o={p.ownership} />
              </td>
              <td>
                <SourceLinks o={p.ownership} />
              </td>
              <td className="num">
                <Decisions
                  d={p.decisions}
                  href={policyDecisionsHref(
                    p.name,
                    p.kind.startsWith("Mutating")
                      ? "MutatingAdmissionPolicy"
                      : "ValidatingAdmissionPolicy",
                  )}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {more}
    </>
  );
}

function carrierHref(c: Carrier): string {
  return ownedPageHref(c.kind, c.name);
}

function CarrierList({ carriers }: { carriers: readonly Carrier[] }) {
  if (carriers.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {carriers.map((c) => (
        <div key={`${c.kind}/${c.name}/${c.position ?? ""}`} title={c.because}>
          <Link className="mono" href={carrierHref(c)}>
            {c.hook ?? c.name}
          </Link>
          {c.certainty === "guess" ? <span className="hint"> (guess)</span> : null}
        </div>
      ))}
    </>
  );
}

function SourcesTable({ r }: { r: EngineReport }) {
  const { shown, more } = useFirstRows(r.sources);
  return (
    <>
      <table className="data" aria-label="Source policies">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Name</th>
            <th scope="col">Enforcement</th>
            <th scope="col">Admission policy generated</th>
            <th scope="col">Webhooks</th>
            <th scope="col">Generated policy · bindings</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((l: SourcePolicyLinks) => {
            const s = l.source;
            const gen = l.policy ? sourceGeneration(l.policy) : undefined;
            return (
              <tr key={sourceKey(s)} id={sourceAnchor(s)}>
                <td className="muted">{s.kind}</td>
                <td className="mono">
                  {s.namespace ? `${s.namespace}/` : ""}
                  {s.name}
                  {l.policy ? null : <div className="hint">named by what carries it; not read</div>}
                </td>
                <td>{l.policy ? sourceDetails(l.policy) : <span className="muted">—</span>}</td>
                <td>
                  {gen === undefined ? (
                    <span className="muted">—</span>
                  ) : gen.generated ? (
                    <span>
                      yes{gen.message ? <span className="hint"> {gen.message}</span> : null}
                    </span>
                  ) : (
                    <span className="warn">no{gen.message ? ` — ${gen.message}` : ""}</span>
                  )}
                </td>
                <td>
                  <CarrierList carriers={l.webhooks} />
                </td>
                <td>
                  <CarrierList carriers={[...l.generatedPolicies, ...l.generatedBindings]} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {more}
    </>
  );
}

function EngineSection({ r }: { r: EngineReport }) {
  return (
    <section
      className="panel"
      aria-label={engineLabel(r.engine)}
      data-testid={`engine-${r.engine}`}
    >
      <h2>
        {engineLabel(r.engine)}{" "}
        <span className="hint">
          {r.sources.length} source policies · {r.hooks.length} hooks · {r.policies.length}{" "}
          admission policies and bindings
        </span>
      </h2>
      {r.served.length > 0 ? (
        <p className="muted">Serves {r.served.join(", ")}</p>
      ) : (
        <p className="muted">
          None of its policy kinds is served: recognised from its hooks alone.
        </p>
      )}
      {r.unrecognised.length > 0 ? (
        <div role="note" className="alert">
          Unrecognised:
          <ul>
            {r.unrecognised.map((u) => (
              <li key={`${u.apiVersion}/${u.kind}/${u.namespace ?? ""}/${u.name}`}>
                <span className="mono">
                  {u.kind} {u.namespace ? `${u.namespace}/` : ""}
                  {u.name}
                </span>{" "}
                <span className="muted">({u.apiVersion})</span> — {u.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {r.findings ? (
        <section aria-label={`${engineLabel(r.engine)} findings`} data-testid="engine-findings">
          <h3>
            Findings <span className="hint">offline lint checks about its objects</span>
          </h3>
          <HookFindings findings={r.findings} />
        </section>
      ) : null}
      {r.sources.length > 0 ? <SourcesTable r={r} /> : null}
      {r.hooks.length > 0 ? <HooksTable hooks={r.hooks} /> : null}
      {r.policies.length > 0 ? <PoliciesTable policies={r.policies} /> : null}
    </section>
  );
}

/** The page body for a report (shared by the page and its bench). */
export function EnginesView({ data }: { data: EnginesData }) {
  return (
    <div className="stack">
      <div className="page-head">
        <h1>Engines</h1>
        <span className="muted">
          {data.engines.length === 0
            ? "no policy engine found"
            : data.engines.map((e) => engineLabel(e.engine)).join(" · ")}
        </span>
      </div>
      {data.notices.map((n) => (
        <p key={n} className="muted" role="note">
          {n}
        </p>
      ))}
      {data.engines.length === 0 ? (
        <p className="muted" data-testid="no-engines">
          No Gatekeeper, Kyverno or Kubewarden policy kinds are served, and no webhook or admission
          policy carries an engine&apos;s marks.
        </p>
      ) : (
        data.engines.map((r) => <EngineSection key={r.engine} r={r} />)
      )}
    </div>
  );
}

/** Which engines run, what they own, what their policies are and what they decided. */
export function EnginesPage() {
  const { context = "", error: contextError } = useTabContext();
  const q = useQuery({ ...enginesQuery(context), enabled: context !== "" });
  const error = contextError ?? q.error;
  if (error)
    return (
      <>
        <h1>Engines</h1>
        <ErrorBox error={error} />
      </>
    );
  if (!q.data)
    return (
      <>
        <h1>Engines</h1>
        <p className="muted" aria-busy="true">
          Reading the engines&apos; policies…
        </p>
      </>
    );
  return <EnginesView data={q.data} />;
}
