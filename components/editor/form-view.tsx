"use client";

import { useState } from "react";
import type { JsonValue } from "@/lib/admission/validate/json";
import type { V1LabelSelector, V1RuleWithOperations } from "@/lib/k8s/types";
import { parseSelectorText, selectorText } from "@/lib/webhooks/selector-text";
import { RuleRows } from "./rule-rows";
import { webhookDefaults } from "@/lib/admission/model/webhook-defaults";

type Hook = {
  name?: string;
  failurePolicy?: string;
  timeoutSeconds?: number;
  sideEffects?: string;
  matchPolicy?: string;
  reinvocationPolicy?: string;
  namespaceSelector?: V1LabelSelector;
  objectSelector?: V1LabelSelector;
  rules?: V1RuleWithOperations[];
};

type Set = (path: Array<string | number>, value: unknown) => void;

function EnumField({
  label,
  value,
  options,
  dflt,
  onChange,
  disabled,
}: {
  label: string;
  value: string | undefined;
  options: string[];
  dflt?: string;
  onChange: (v: string | undefined) => void;
  disabled: boolean;
}) {
  return (
    <label>
      {label}
      <select
        value={value ?? ""}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value || undefined)}
      >
        <option value="">{dflt ? `(default: ${dflt})` : "(unset)"}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

function SelectorField({
  label,
  selector,
  onChange,
  disabled,
}: {
  label: string;
  selector: V1LabelSelector | undefined;
  onChange: (s: V1LabelSelector | undefined) => void;
  disabled: boolean;
}) {
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const [error, setError] = useState("");
  const shown = draft ?? selectorText(selector);
  return (
    <label className="wide">
      {label}
      <input
        value={shown}
        disabled={disabled}
        placeholder="empty: everything  ·  a=b, k in (x,y), k notin (z), k, !k"
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => {
          if (draft === undefined) return;
          const r = parseSelectorText(draft);
          if ("error" in r) {
            setError(r.error);
            return;
          }
          setError("");
          setDraft(undefined);
          onChange(Object.keys(r.selector).length === 0 ? {} : r.selector);
        }}
      />
      {error ? <span className="bad">{error}</span> : null}
    </label>
  );
}

/** Common fields of each hook as a form; every change is written into the YAML text. */
export function FormView({
  value,
  mutating,
  nameEditable,
  readOnly,
  onSet,
}: {
  value: JsonValue | undefined;
  mutating: boolean;
  nameEditable: boolean;
  readOnly: boolean;
  onSet: Set;
}) {
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value))
    return (
      <p className="alert">The YAML does not parse as an object: fix it in the YAML view first.</p>
    );
  const obj = value as { apiVersion?: string; metadata?: { name?: string }; webhooks?: Hook[] };
  const hooks = Array.isArray(obj.webhooks) ? obj.webhooks : [];
  const defaults = webhookDefaults(String(obj.apiVersion ?? "").split("/")[1] ?? "v1");
  return (
    <div className="form-view" aria-label="Form">
      <div className="form-row">
        <label className="wide">
          Name (metadata.name)
          <input
            value={obj.metadata?.name ?? ""}
            disabled={!nameEditable || readOnly}
            onChange={(e) => onSet(["metadata", "name"], e.target.value)}
          />
        </label>
      </div>
      {hooks.map((h, i) => (
        <fieldset key={i} className="hook-form">
          <legend className="mono">
            #{i} {h.name}
          </legend>
          <div className="form-row">
            <EnumField
              label="failurePolicy"
              value={h.failurePolicy}
              options={["Fail", "Ignore"]}
              dflt={defaults.failurePolicy}
              disabled={readOnly}
              onChange={(v) => onSet(["webhooks", i, "failurePolicy"], v)}
            />
            <label>
              timeoutSeconds
              <input
                type="number"
                min={1}
                max={30}
                value={h.timeoutSeconds ?? ""}
                placeholder="10"
                disabled={readOnly}
                onChange={(e) =>
                  onSet(
                    ["webhooks", i, "timeoutSeconds"],
                    e.target.value === "" ? undefined : Number(e.target.value),
                  )
                }
              />
            </label>
            <EnumField
              label="sideEffects"
              value={h.sideEffects}
              options={["None", "NoneOnDryRun", "Some", "Unknown"]}
              disabled={readOnly}
              onChange={(v) => onSet(["webhooks", i, "sideEffects"], v)}
            />
            <EnumField
              label="matchPolicy"
              value={h.matchPolicy}
              options={["Equivalent", "Exact"]}
              dflt={defaults.matchPolicy}
              disabled={readOnly}
              onChange={(v) => onSet(["webhooks", i, "matchPolicy"], v)}
            />
            {mutating ? (
              <EnumField
                label="reinvocationPolicy"
                value={h.reinvocationPolicy}
                options={["Never", "IfNeeded"]}
                dflt={defaults.reinvocationPolicy}
                disabled={readOnly}
                onChange={(v) => onSet(["webhooks", i, "reinvocationPolicy"], v)}
              />
            ) : null}
          </div>
          <div className="form-row">
            <SelectorField
              label="namespaceSelector"
              selector={h.namespaceSelector}
              disabled={readOnly}
              onChange={(s) => onSet(["webhooks", i, "namespaceSelector"], s)}
            />
            <SelectorField
              label="objectSelector"
              selector={h.objectSelector}
              disabled={readOnly}
              onChange={(s) => onSet(["webhooks", i, "objectSelector"], s)}
            />
          </div>
          <RuleRows
            rules={h.rules ?? []}
            readOnly={readOnly}
            onSet={(path, v) => onSet(["webhooks", i, "rules", ...path], v)}
          />
        </fieldset>
      ))}
    </div>
  );
}
