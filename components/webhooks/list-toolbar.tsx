"use client";

import type { ListState } from "@/lib/webhooks/list-filter";

/** View toggle, search and filters of the webhook list; every change goes to the URL. */
export function ListToolbar({
  state,
  kinds,
  onChange,
  shown,
  total,
}: {
  state: ListState;
  kinds: string[];
  onChange: (next: Partial<ListState>) => void;
  shown: number;
  total: number;
}) {
  return (
    <div className="toolbar" role="search">
      <div className="seg" role="group" aria-label="Rows">
        <button
          type="button"
          aria-pressed={state.view === "hooks"}
          onClick={() => onChange({ view: "hooks" })}
        >
          One row per hook
        </button>
        <button
          type="button"
          aria-pressed={state.view === "configs"}
          onClick={() => onChange({ view: "configs" })}
        >
          One row per configuration
        </button>
      </div>
      <label>
        Search
        <input
          type="search"
          value={state.q}
          placeholder="name, rule, backend, selector"
          onChange={(e) => onChange({ q: e.target.value })}
        />
      </label>
      <label>
        Kind
        <select value={state.kind} onChange={(e) => onChange({ kind: e.target.value })}>
          <option value="">all</option>
          {kinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label>
        Failure policy
        <select
          value={state.failurePolicy}
          onChange={(e) => onChange({ failurePolicy: e.target.value })}
        >
          <option value="">all</option>
          <option value="Fail">Fail</option>
          <option value="Ignore">Ignore</option>
        </select>
      </label>
      <label>
        Findings
        <select value={state.findings} onChange={(e) => onChange({ findings: e.target.value })}>
          <option value="">all</option>
          <option value="any">with findings</option>
          <option value="critical">critical</option>
          <option value="high">high</option>
          <option value="medium">medium</option>
          <option value="low">low</option>
        </select>
      </label>
      {/* A status message (WCAG 4.1.3): the count is read out as a filter narrows the list or
          another client adds or removes a configuration. */}
      <span className="muted" data-testid="row-count" role="status">
        {shown === total ? `${total} rows` : `${shown} of ${total} rows`}
      </span>
    </div>
  );
}
