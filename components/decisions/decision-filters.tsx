"use client";

import { useState, type FormEvent } from "react";
import { DECISION_OUTCOMES, type DecisionOutcome } from "@/lib/admission/audit/audit";
import type { DecisionFilter } from "@/lib/decisions/filter";
import { OUTCOME_LABELS, OUTCOME_TONES } from "@/lib/decisions/outcomes";
import { dateTime } from "@/lib/clock";

const TEXT_FIELDS = [
  ["hook", "Webhook"],
  ["policy", "Policy"],
  ["namespace", "Namespace"],
  ["user", "User"],
  ["resource", "Resource"],
  ["auditID", "Audit ID"],
] as const;

/** Fields picked from a list ("any" clears them). */
const CHOICES = [
  ["operation", "Operation", ["CREATE", "UPDATE", "DELETE", "CONNECT"], undefined],
  [
    "phase",
    "Phase",
    ["mutating", "validating"],
    "Mutating or validating: a webhook name may be in configurations of both kinds, and a policy name may be both a ValidatingAdmissionPolicy's and a MutatingAdmissionPolicy's",
  ],
] as const;

const RANGES = [
  ["", "any time"],
  ["900000", "last 15 min"],
  ["3600000", "last hour"],
  ["21600000", "last 6 h"],
  ["86400000", "last 24 h"],
  ["604800000", "last 7 days"],
] as const;

/** The feed's filters; every change is written to the page URL by `onChange`. */
export function DecisionFilters({
  filter,
  onChange,
}: {
  filter: DecisionFilter;
  onChange(next: DecisionFilter): void;
}) {
  // Text fields are drafts until Enter / Apply, so typing does not reload the feed per key.
  const [draft, setDraft] = useState(() => textOf(filter));
  const [applied, setApplied] = useState(filter);
  const [now] = useState(() => Date.now());
  if (applied !== filter) {
    setApplied(filter);
    setDraft(textOf(filter));
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: DecisionFilter = { ...filter };
    for (const [f] of TEXT_FIELDS) {
      const v = draft[f].trim();
      next[f] = v === "" ? undefined : v;
    }
    onChange(next);
  };
  const toggle = (o: DecisionOutcome) =>
    onChange({
      ...filter,
      outcome: filter.outcome.includes(o)
        ? filter.outcome.filter((x) => x !== o)
        : [...filter.outcome, o],
    });
  const rangeValue =
    filter.from === undefined
      ? ""
      : (RANGES.find(
          ([ms]) => ms !== "" && Math.abs(now - Number(ms) - (filter.from ?? 0)) < 60_000,
        )?.[0] ?? "custom");
  return (
    <form className="toolbar filters" onSubmit={submit} aria-label="Filter decisions">
      {TEXT_FIELDS.map(([f, label]) => (
        <label key={f}>
          {label}
          <input
            type="text"
            name={f}
            value={draft[f]}
            size={f === "hook" || f === "policy" ? 22 : 12}
            onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
          />
        </label>
      ))}
      {CHOICES.map(([f, label, values, title]) => (
        <label key={f} title={title}>
          {label}
          <select
            value={filter[f] ?? ""}
            onChange={(e) => onChange({ ...filter, [f]: e.target.value || undefined })}
          >
            <option value="">any</option>
            {values.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
      ))}
      <label>
        Time
        <select
          value={rangeValue}
          onChange={(e) =>
            onChange({
              ...filter,
              from: e.target.value ? Date.now() - Number(e.target.value) : undefined,
              to: undefined,
            })
          }
        >
          {RANGES.map(([ms, label]) => (
            <option key={ms} value={ms}>
              {label}
            </option>
          ))}
          {rangeValue === "custom" ? (
            <option value="custom" disabled>
              since {dateTime(filter.from ?? 0)}
            </option>
          ) : null}
        </select>
      </label>
      <button type="submit">Apply</button>
      <div className="outcome-toggles" role="group" aria-label="Outcomes">
        {DECISION_OUTCOMES.map((o) => (
          <button
            key={o}
            type="button"
            className={filter.outcome.includes(o) ? `outcome tone-${OUTCOME_TONES[o]}` : "outcome"}
            aria-pressed={filter.outcome.includes(o)}
            onClick={() => toggle(o)}
          >
            {OUTCOME_LABELS[o]}
          </button>
        ))}
      </div>
    </form>
  );
}

function textOf(f: DecisionFilter): Record<(typeof TEXT_FIELDS)[number][0], string> {
  return {
    hook: f.hook ?? "",
    policy: f.policy ?? "",
    namespace: f.namespace ?? "",
    user: f.user ?? "",
    resource: f.resource ?? "",
    auditID: f.auditID ?? "",
  };
}
