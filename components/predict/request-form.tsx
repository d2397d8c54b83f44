"use client";

import { useState } from "react";
import type { RequestUserInfo } from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { PagePrediction } from "@/lib/predict/page-request";
import {
  DEFAULT_STATE,
  OPERATIONS,
  formatLabels,
  parseLabels,
  type PredictPageState,
} from "@/lib/predict/page-state";
import { PREDICT_TEMPLATES } from "@/lib/predict/templates";
import { ObjectPicker } from "./object-picker";
import { YamlField } from "./yaml-field";

interface Props {
  state: PredictPageState;
  onChange: (s: PredictPageState) => void;
  result: PagePrediction | undefined;
  namespaces: Readonly<Record<string, Labels>>;
  /** The live namespaces whose phase is Terminating. */
  terminating?: readonly string[];
  identity: RequestUserInfo | undefined;
  discovery: readonly DiscoveryResource[];
}

/** The request: object, operation, namespace (with what-if labels), user and groups, dry run. */
export function RequestForm({
  state,
  onChange,
  result,
  namespaces,
  terminating = [],
  identity,
  discovery,
}: Props) {
  const set = (patch: Partial<PredictPageState>) => onChange({ ...state, ...patch });
  const [labelsText, setLabelsText] = useState(() =>
    state.namespaceLabels ? formatLabels(state.namespaceLabels) : "",
  );
  const [labelsError, setLabelsError] = useState<string | undefined>(undefined);
  const problems = result && !result.ok ? result.problems : [];
  const problemOf = (f: "object" | "oldObject") => problems.find((p) => p.field === f);
  const request = result?.ok ? result.report.request : undefined;
  const ns = request?.namespace ?? "";
  const liveLabels = ns ? namespaces[ns] : undefined;

  const applyTemplate = (id: string) => {
    const t = PREDICT_TEMPLATES.find((x) => x.id === id);
    if (t) onChange({ ...DEFAULT_STATE, ...t.state, user: state.user, groups: state.groups });
  };

  return (
    <form
      className="panel stack predict-form"
      aria-label="Request"
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="form-row">
        <label htmlFor="predict-template">Start from</label>
        <select id="predict-template" value="" onChange={(e) => applyTemplate(e.target.value)}>
          <option value="">a template…</option>
          {PREDICT_TEMPLATES.map((t) => (
            <option key={t.id} value={t.id}>
              {t.title}
            </option>
          ))}
        </select>
      </div>
      <ObjectPicker
        discovery={discovery}
        namespaces={Object.keys(namespaces)}
        onPick={(yamlText) =>
          set({ object: yamlText, oldObject: "", operation: "UPDATE", subresource: "" })
        }
      />
      <fieldset className="seg-field">
        <legend>Operation</legend>
        <div className="seg" role="radiogroup" aria-label="Operation">
          {OPERATIONS.map((op) => (
            <button
              key={op}
              type="button"
              role="radio"
              aria-checked={state.operation === op}
              onClick={() => set({ operation: op })}
            >
              {op}
            </button>
          ))}
        </div>
      </fieldset>
      <div className="form-row">
        <label htmlFor="predict-sub">Subresource</label>
        <input
          id="predict-sub"
          className="mono"
          value={state.subresource}
          placeholder={state.operation === "CONNECT" ? "exec, attach, portforward, proxy" : "none"}
          onChange={(e) => set({ subresource: e.target.value })}
        />
        <label htmlFor="predict-resource">Resource</label>
        <input
          id="predict-resource"
          className="mono"
          value={state.resource}
          placeholder={
            request
              ? `${request.group || "core"}/${request.version}/${request.resource}`
              : "from the kind"
          }
          onChange={(e) => set({ resource: e.target.value })}
        />
      </div>
      <YamlField
        id="predict-object"
        label={
          state.operation === "DELETE"
            ? "Object being deleted"
            : state.operation === "CONNECT"
              ? "Connect options"
              : state.operation === "UPDATE"
                ? "New object"
                : "Object"
        }
        value={state.object}
        problem={problemOf("object")}
        onChange={(object) => set({ object })}
        rows={16}
      />
      {state.operation === "UPDATE" ? (
        <YamlField
          id="predict-old"
          label="Old (stored) object — empty: the same as the new one"
          value={state.oldObject}
          problem={problemOf("oldObject")}
          onChange={(oldObject) => set({ oldObject })}
          rows={6}
        />
      ) : null}
      {problems
        .filter((p) => p.field === "request")
        .map((p) => (
          <p key={p.message} className="alert" role="alert">
            {p.message}
          </p>
        ))}
      <div className="form-row">
        <label htmlFor="predict-ns">Namespace</label>
        <input
          id="predict-ns"
          className="mono"
          value={state.namespace}
          list="predict-ns-list"
          placeholder={ns || "from the object"}
          onChange={(e) => set({ namespace: e.target.value })}
        />
        <datalist id="predict-ns-list">
          {Object.keys(namespaces).map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <label htmlFor="predict-name">Name</label>
        <input
          id="predict-name"
          className="mono"
          value={state.name}
          placeholder={
            request?.name ||
            (state.operation === "CONNECT"
              ? "the pod (node, service) connected to"
              : "from the object")
          }
          onChange={(e) => set({ name: e.target.value })}
        />
      </div>
      {request && request.namespaceLabelsFrom !== "cluster-scoped" ? (
        <div className="ns-labels" data-testid="namespace-labels">
          <span className="hint">
            Labels of {ns}{" "}
            {request.namespaceLabelsFrom === "flag"
              ? "(what-if)"
              : request.namespaceLabelsFrom === "object"
                ? "(from the object)"
                : request.namespaceLabelsFrom === "missing"
                  ? "(the namespace does not exist)"
                  : terminating.includes(ns)
                    ? "(live; the namespace is being terminated)"
                    : "(live)"}
            :
          </span>{" "}
          {Object.entries(request.namespaceLabels ?? {}).map(([k, v]) => (
            <span key={k} className="chip">
              {k}={v}
            </span>
          ))}
        </div>
      ) : null}
      <div className="form-row">
        <label className="check">
          <input
            type="checkbox"
            checked={state.namespaceLabels !== undefined}
            onChange={(e) => {
              if (!e.target.checked) {
                setLabelsError(undefined);
                return set({ namespaceLabels: undefined });
              }
              const start = liveLabels ?? { "kubernetes.io/metadata.name": ns };
              setLabelsText(formatLabels(start));
              set({ namespaceLabels: { ...start } });
            }}
          />{" "}
          What-if namespace labels
        </label>
      </div>
      {state.namespaceLabels !== undefined ? (
        <div className="form-row">
          <label htmlFor="predict-ns-labels">Labels</label>
          <input
            id="predict-ns-labels"
            className="mono wide-input"
            value={labelsText}
            aria-invalid={labelsError ? true : undefined}
            aria-describedby={labelsError ? "predict-ns-labels-error" : undefined}
            onChange={(e) => {
              setLabelsText(e.target.value);
              const p = parseLabels(e.target.value);
              setLabelsError(p.error);
              if (!p.error) set({ namespaceLabels: p.labels });
            }}
          />
          {labelsError ? (
            <span id="predict-ns-labels-error" className="bad">
              {labelsError}
            </span>
          ) : null}
        </div>
      ) : null}
      <div className="form-row">
        <label htmlFor="predict-user">User</label>
        <input
          id="predict-user"
          className="mono"
          value={state.user}
          placeholder={identity?.username ?? "your identity"}
          onChange={(e) => set({ user: e.target.value })}
        />
        <label htmlFor="predict-groups">Groups</label>
        <input
          id="predict-groups"
          className="mono"
          value={state.groups.join(",")}
          placeholder={state.user ? "g1,g2" : (identity?.groups.join(",") ?? "")}
          onChange={(e) =>
            set({
              groups: e.target.value
                .split(",")
                .map((g) => g.trim())
                .filter((g) => g !== ""),
            })
          }
        />
      </div>
      <div className="form-row">
        <label className="check">
          <input
            type="checkbox"
            checked={state.dryRun}
            onChange={(e) => set({ dryRun: e.target.checked })}
          />{" "}
          Dry run (the request carries dryRun=All)
        </label>
      </div>
    </form>
  );
}
