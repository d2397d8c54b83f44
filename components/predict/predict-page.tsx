"use client";

import { useEffect, useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { compileLegacy } from "@/lib/admission/historical/legacy-hooks";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import { useTabContext } from "@/components/layout/tab-context";
import { PREDICT_STATE_REREAD_MS, predictStateQuery } from "@/lib/queries/predict";
import { clockTime } from "@/lib/clock";
import { predictPage, snapshotForMinor, type LiveInputs } from "@/lib/predict/page-request";
import {
  assumedMinorText,
  KUBERNETES_MINORS,
  parseKubernetesMinor,
  type AssumedMinor,
} from "@/lib/admission/model/kubernetes-minor";
import { stateFromQuery, stateToQuery, type PredictPageState } from "@/lib/predict/page-state";
import { exampleFor, type HookExample } from "@/lib/predict/hook-example";
import { hookTargetParam, parseHookTarget, type HookTarget } from "@/lib/predict/links";
import { ErrorBox } from "@/components/ui/error-box";
import { RequestForm } from "./request-form";
import { PredictionView } from "./prediction-view";
import { SavePredictionAsTest } from "@/components/admission-tests/save-prediction";
import { TryForReal } from "./try-for-real";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";

/** How long the URL waits for typing to pause before it follows the state. */
const URL_DELAY_MS = 300;

/**
 * Predict: what the apiserver will do with one request, recomputed in the browser as the admin
 * types, from the admission state of the tab's identity; the what-if state lives in the URL.
 */
export function PredictPage({ initialQuery }: { initialQuery: string }) {
  const { context = "", error: contextError } = useTabContext();
  const live = useQuery({ ...predictStateQuery(context), enabled: context !== "" });
  const [state, setState] = useState<PredictPageState>(() => stateFromQuery(initialQuery));
  // `for`: the hook the page is opened for, marked in the prediction. Without a request in the
  // link, the page opens on one that hook is called for, found once the live state is read; the
  // URL then holds both, so a reload or a shared link shows the same request.
  const { target, searched } = useMemo(() => {
    const q = new URLSearchParams(initialQuery);
    return { target: parseHookTarget(q.get("for")), searched: !q.has("object") };
  }, [initialQuery]);
  const [example, setExample] = useState<HookExample | undefined>();

  useEffect(() => {
    const t = setTimeout(() => {
      const q = withTarget(stateToQuery(state), target);
      const url = `${window.location.pathname}${q ? `?${q}` : ""}`;
      if (url !== `${window.location.pathname}${window.location.search}`)
        window.history.replaceState(window.history.state, "", url);
    }, URL_DELAY_MS);
    return () => clearTimeout(t);
  }, [state, target]);

  const chosenMinor = state.kubernetesVersion;
  const inputs = useMemo<LiveInputs | undefined>(() => {
    const d = live.data;
    if (!d) return undefined;
    const discovery = d.snapshot.discovery?.length ? d.snapshot.discovery : builtinDiscovery();
    return {
      compiled: compileSnapshot(snapshotForMinor(d.snapshot, chosenMinor)),
      legacy: compileLegacy(d.snapshot),
      discovery,
      namespaces: d.snapshot.namespaces ?? {},
      identity: d.identity,
      ...(d.ownership ? { ownership: d.ownership } : {}),
    };
  }, [live.data, chosenMinor]);

  // Once, when the live state first arrives (state adjusted while rendering, as React advises
  // for state derived from what just changed).
  if (target && searched && !example && inputs) {
    const found = exampleFor(target, inputs);
    setExample(found);
    if (found.found) setState(found.state);
  }

  const waiting = target !== undefined && searched && example === undefined;
  const result = useMemo(
    () => (inputs && !waiting ? predictPage(state, inputs) : undefined),
    [state, inputs, waiting],
  );
  const error = contextError ?? live.error;

  return (
    <div className="stack predict">
      <div className="page-head">
        <h1>Predict</h1>
        <span className="hint">
          Which hooks and policies the apiserver calls for one request, in which order, and why
          every other one is not called — from the cluster&apos;s live state, recomputed as you
          type. The page&apos;s address holds the request: share it to share the prediction.
        </span>
      </div>
      <OutsideApiNotice />
      {error ? <ErrorBox error={error} /> : null}
      {live.data ? (
        <p className="hint" data-testid="state-read-at">
          Live state read {clockTime(live.dataUpdatedAt)}, read again every{" "}
          {PREDICT_STATE_REREAD_MS / 1000} s and when this tab is shown.
        </p>
      ) : null}
      {live.data && live.data.notices.length > 0 ? (
        <ul className="hint" aria-label="State notices">
          {live.data.notices.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      {inputs ? (
        <MinorPicker
          assumed={inputs.compiled.kubernetes}
          cluster={live.data?.snapshot.kubernetes}
          onPick={(kubernetesVersion) => setState({ ...state, kubernetesVersion })}
        />
      ) : null}
      {target && searched && !error ? <ExampleNote target={target} example={example} /> : null}
      <div className="predict-grid">
        <RequestForm
          state={state}
          onChange={setState}
          result={result}
          namespaces={live.data?.snapshot.namespaces ?? {}}
          terminating={live.data?.snapshot.terminatingNamespaces}
          identity={live.data?.identity}
          discovery={inputs?.discovery ?? []}
        />
        <div className="stack">
          {!live.data && !error ? <p className="muted">Reading the cluster…</p> : null}
          {result ? <PredictionView result={result} focus={target} /> : null}
          {result?.ok && inputs ? (
            <TryForReal
              key={context}
              context={context}
              result={result}
              state={state}
              compiled={inputs.compiled}
            />
          ) : null}
          {result?.ok && inputs ? (
            <SavePredictionAsTest
              context={context}
              request={result.request}
              compiled={inputs.compiled}
              namespaceLabels={result.report.request.namespaceLabels}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** The page's query with `for` kept first, so the marked hook survives a reload. */
function withTarget(query: string, target: HookTarget | undefined): string {
  if (!target) return query;
  const q = new URLSearchParams({ for: hookTargetParam(target) }).toString();
  return query ? `${q}&${query}` : q;
}

function targetLabel(t: HookTarget): string {
  switch (t.source) {
    case "MutatingWebhookConfiguration":
    case "ValidatingWebhookConfiguration":
      return `webhook ${t.name} (${t.source} ${t.configuration})`;
    default:
      return t.name
        ? `${t.source} ${t.configuration} with binding ${t.name}`
        : `${t.source} ${t.configuration}`;
  }
}

/** What the page opened on for a hook's link, and how much of it is real. */
function ExampleNote({
  target,
  example,
}: {
  target: HookTarget;
  example: HookExample | undefined;
}) {
  const who = targetLabel(target);
  let text: string;
  if (!example) text = `Finding a request the ${who} is called for…`;
  else if (!example.found) text = `No request to show: ${example.reason}.`;
  else if (!example.called)
    text = `No request found that the ${who} is called for. Shown: ${example.summary}, the first its rules allow; the prediction says why it is skipped.`;
  else if (example.whatIfNamespace)
    text = `Opened on a request the ${who} is called for: ${example.summary}, with that namespace's labels changed (what-if) to satisfy its ${example.whatIfSelectors ?? "namespaceSelector"}, as no live namespace does. Edit the request to try others.`;
  else
    text = `Opened on a request the ${who} is called for: ${example.summary}. Edit the request to try others.`;
  return (
    <p
      className="hint"
      data-testid="hook-example"
      data-called={example?.found ? String(example.called) : undefined}
    >
      {text}
    </p>
  );
}

/**
 * Which Kubernetes minor the prediction reproduces, and the admin's choice of another: the
 * apiserver's behaviour differs by minor (lib/admission/model/kubernetes-minor.ts).
 */
function MinorPicker({
  assumed,
  cluster,
  onPick,
}: {
  assumed: AssumedMinor;
  cluster: AssumedMinor | undefined;
  onPick: (minor: AssumedMinor["minor"] | undefined) => void;
}) {
  return (
    <p className="hint" data-testid="predict-minor">
      Predicted for <strong>{assumedMinorText(assumed)}</strong>.{" "}
      <label>
        Predict for{" "}
        <select
          aria-label="Kubernetes version"
          value={assumed.source === "flag" ? assumed.minor : ""}
          onChange={(e) => onPick(parseKubernetesMinor(e.target.value))}
        >
          <option value="">
            {cluster ? `the cluster's version (${cluster.minor})` : "the newest (no version known)"}
          </option>
          {KUBERNETES_MINORS.map((m) => (
            <option key={m} value={m}>
              Kubernetes {m}
            </option>
          ))}
        </select>
      </label>
    </p>
  );
}
