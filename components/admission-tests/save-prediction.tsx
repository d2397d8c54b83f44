"use client";

import { expectationsFromPrediction } from "@/lib/admission/testing/from-prediction";
import { useMemo, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { CompiledSnapshot } from "@/lib/admission/matching/compile";
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import { predict } from "@/lib/admission/prediction/predict";
import type { TestCase } from "@/lib/admission/testing/format";
import { ownersOfPrediction, testRequestOfAdmission } from "@/lib/replay/case";
import { caseListKey, saveCase } from "@/lib/queries/admission-tests";
import { ErrorBox } from "@/components/ui/error-box";
import { downloadCases } from "./download";

type OwnerResource =
  | "mutatingwebhookconfigurations"
  | "validatingwebhookconfigurations"
  | "validatingadmissionpolicies"
  | "mutatingadmissionpolicies";

function caseTitle(r: AdmissionRequest): string {
  const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const obj = r.namespace ? `${r.namespace}/${r.name || "(generated)"}` : r.name || "(generated)";
  return `${r.operation.toLowerCase()} ${res} ${obj}`;
}

/**
 * "Save as test" on a Predict result: the request as predicted (with the namespace labels the
 * prediction used) and what it calls and skips, downloaded as a test file or kept for one of the
 * configurations the prediction involves.
 */
export function SavePredictionAsTest({
  context,
  request,
  compiled,
  namespaceLabels,
}: {
  context: string;
  request: AdmissionRequest;
  compiled: CompiledSnapshot;
  namespaceLabels: Labels | null;
}) {
  const client = useQueryClient();
  const { testCase, owners } = useMemo(() => {
    const e = predict(request, compiled);
    const c: TestCase = {
      name: caseTitle(request),
      source: { from: "predict", at: new Date().toISOString(), configuration: context },
      request: testRequestOfAdmission(request, namespaceLabels),
      expect: expectationsFromPrediction(e.prediction, (s) => e.explainer.skip(s).message),
    };
    return { testCase: c, owners: ownersOfPrediction(e.prediction) };
  }, [request, compiled, namespaceLabels, context]);
  const [owner, setOwner] = useState(0);
  const chosen = owners[owner] ?? owners[0];
  const save = useMutation({
    mutationFn: () =>
      saveCase({
        case: testCase,
        owner: { resource: chosen?.resource as OwnerResource, name: chosen?.name ?? "" },
      }),
    onSuccess: (stored) =>
      client.invalidateQueries({ queryKey: caseListKey(context, stored.owner) }),
  });
  return (
    <section className="panel" aria-label="Save as test">
      <h2>Save as test</h2>
      <p className="hint">
        This request and what it calls and skips, as an admission test case: a file to run with{" "}
        <span className="mono">portcullis test</span>, or kept by the dashboard and replayed when
        the configuration is edited.
      </p>
      <div className="row">
        <button type="button" onClick={() => void downloadCases([testCase], testCase.name)}>
          Download YAML
        </button>{" "}
        {owners.length > 0 ? (
          <>
            <label>
              Keep for{" "}
              <select
                value={owner}
                onChange={(e) => {
                  setOwner(Number(e.target.value));
                  save.reset();
                }}
              >
                {owners.map((o, i) => (
                  <option key={`${o.resource}/${o.name}`} value={i}>
                    {o.name} ({o.resource})
                  </option>
                ))}
              </select>
            </label>{" "}
            <button type="button" onClick={() => save.mutate()} disabled={save.isPending}>
              Keep
            </button>
          </>
        ) : (
          <span className="muted">
            No webhook configuration or policy is involved to keep it for.
          </span>
        )}
      </div>
      {save.data ? (
        <p className="notice" role="status">
          Kept as case {save.data.id} for <span className="mono">{save.data.owner.name}</span>.
        </p>
      ) : null}
      {save.error ? <ErrorBox error={save.error} /> : null}
    </section>
  );
}
