"use client";

import { useEffect, useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { compileSnapshot } from "@/lib/admission/compile";
import { compileLegacy } from "@/lib/admission/legacy-hooks";
import { builtinDiscovery } from "@/lib/admission/resources";
import { useTabContext } from "@/components/layout/tab-context";
import { predictStateQuery } from "@/lib/queries/predict";
import { predictPage, type LiveInputs } from "@/lib/predict/page-request";
import { stateFromQuery, stateToQuery, type PredictPageState } from "@/lib/predict/page-state";
import { ErrorBox } from "@/components/ui/error-box";
import { RequestForm } from "./request-form";
import { PredictionView } from "./prediction-view";
import { TryForReal } from "./try-for-real";

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

  useEffect(() => {
    const t = setTimeout(() => {
      const q = stateToQuery(state);
      const url = `${window.location.pathname}${q ? `?${q}` : ""}`;
      if (url !== `${window.location.pathname}${window.location.search}`)
        window.history.replaceState(window.history.state, "", url);
    }, URL_DELAY_MS);
    return () => clearTimeout(t);
  }, [state]);

  const inputs = useMemo<LiveInputs | undefined>(() => {
    const d = live.data;
    if (!d) return undefined;
    const discovery = d.snapshot.discovery?.length ? d.snapshot.discovery : builtinDiscovery();
    return {
      compiled: compileSnapshot(d.snapshot),
      legacy: compileLegacy(d.snapshot),
      discovery,
      namespaces: d.snapshot.namespaces ?? {},
      identity: d.identity,
    };
  }, [live.data]);

  const result = useMemo(() => (inputs ? predictPage(state, inputs) : undefined), [state, inputs]);
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
      {error ? <ErrorBox error={error} /> : null}
      {live.data && live.data.notices.length > 0 ? (
        <ul className="hint" aria-label="State notices">
          {live.data.notices.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      <div className="predict-grid">
        <RequestForm
          state={state}
          onChange={setState}
          result={result}
          namespaces={live.data?.snapshot.namespaces ?? {}}
          identity={live.data?.identity}
          discovery={inputs?.discovery ?? []}
        />
        <div className="stack">
          {!live.data && !error ? <p className="muted">Reading the cluster…</p> : null}
          {result ? <PredictionView result={result} /> : null}
          {result?.ok && inputs ? (
            <TryForReal
              key={context}
              context={context}
              result={result}
              state={state}
              compiled={inputs.compiled}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}
