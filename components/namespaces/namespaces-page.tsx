"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { labelValue } from "@/lib/admission/model/selectors";
import {
  cellReader,
  describeRequest,
  explainCell,
  failClosedInterceptors,
} from "@/lib/admission/exemptions/exemption-views";
import {
  unpackPreview,
  visibleColumns,
  visibleRows,
  type PackedPreview,
} from "@/lib/namespaces/matrix-preview";
import { readOnly, writeParams, type MatrixParams } from "@/lib/namespaces/matrix-params";
import { configurationHref, hookHref, namespaceHref } from "@/lib/namespaces/links";
import { ErrorBox } from "@/components/ui/error-box";
import { useStreamedSeed } from "@/components/ui/use-settled";
import type { AdmissionStateSeedCollections, AdmissionStateSeedHead } from "./use-admission-state";
import { MatrixGrid, type CellRef } from "./matrix-grid";
import { PreviewGrid } from "./preview-grid";
import { RequestPicker } from "./request-picker";
import { useLiveMatrix } from "./use-live-matrix";
import { LiveIndicator } from "@/components/live/live-indicator";
import { PodSecurityDefaults } from "./pod-security-defaults";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";

const withCollections = (head: AdmissionStateSeedHead, json: string) => ({
  ...head,
  ...(JSON.parse(json) as AdmissionStateSeedCollections),
});

/** The exemption matrix page: namespaces by hooks for one request, live. */
export function NamespacesPage({
  head,
  preview: packed,
  collections,
}: {
  /** Whose view the server read and what the cluster serves. */
  head?: AdmissionStateSeedHead;
  /** The first screen computed on the server for `preview.params` (shown until the model loads). */
  preview?: PackedPreview;
  /** The collections the server read (JSON), arriving after the first screen. */
  collections?: Promise<string | undefined>;
}) {
  const { seed, pending } = useStreamedSeed(head, collections, withCollections);
  const { params, setParams, state, request, matrix } = useLiveMatrix(seed, pending);
  const preview = useMemo(() => {
    try {
      return packed && unpackPreview(packed);
    } catch {
      return undefined;
    }
  }, [packed]);
  const read = useMemo(() => (matrix ? cellReader(matrix) : undefined), [matrix]);
  const rows = useMemo(() => (matrix ? visibleRows(matrix, params) : []), [matrix, params]);
  const cols = useMemo(() => (matrix ? visibleColumns(matrix, params) : []), [matrix, params]);
  const only = readOnly(params.only);

  // Namespaces created while the page is open are checked for a missing grouping label.
  const [openedAt] = useState(() => Date.now());
  const created = state.created;
  const fresh = useMemo(() => {
    if (!matrix) return [];
    const out: Array<{ name: string; hooks: string[] }> = [];
    for (const s of matrix.labelSets) {
      if (s.groupValue !== undefined) continue;
      for (const name of s.namespaces) {
        // creationTimestamp has whole seconds: allow the second the page opened in.
        if ((created.get(name) ?? 0) < openedAt - 1000) continue;
        const hooks = failClosedInterceptors(matrix, name).map((h) => h.hook.name);
        if (hooks.length > 0) out.push({ name, hooks });
      }
    }
    return out;
  }, [matrix, created, openedAt]);

  const [active, setActive] = useState<CellRef | undefined>(undefined);
  // A keyboard user already in the first screen's grid stays on their cell when the whole
  // matrix replaces it.
  const [previewFocused, setPreviewFocused] = useState(false);
  const detail = useMemo(() => {
    if (!matrix || !read || !active) return undefined;
    const row = rows[active.row];
    const h = cols[active.col];
    const hook = h === undefined ? undefined : matrix.hooks[h];
    if (!row || row.kind !== "namespace" || !hook || h === undefined) return undefined;
    const labels = state.snapshot?.namespaces?.[row.name] ?? {};
    return {
      name: row.name,
      hook,
      why: explainCell(matrix, hook, read(row.name, row.g, h), row.name, labels),
    };
  }, [matrix, read, active, rows, cols, state.snapshot]);

  const groupLabels = useMemo(() => {
    const keys = new Set<string>(["runlevel"]);
    for (const labels of Object.values(state.snapshot?.namespaces ?? {}))
      for (const k of Object.keys(labels)) if (k !== "kubernetes.io/metadata.name") keys.add(k);
    keys.add(params.groupBy);
    return [...keys].sort().slice(0, 200);
  }, [state.snapshot, params.groupBy]);

  const namespaceCount = rows.filter((r) => r.kind === "namespace").length;
  return (
    <>
      <div className="page-head">
        <h1>Namespaces and exemptions</h1>
        <LiveIndicator {...state.live} />
        <span className="spacer" />
        <Link href="/deadlocks">Deadlock map</Link>
      </div>
      <PodSecurityDefaults />
      <OutsideApiNotice />
      <div className="toolbar" role="search" aria-label="Matrix request and filters">
        <RequestPicker params={params} onChange={setParams} />
        <label>
          Group by label
          <select value={params.groupBy} onChange={(e) => setParams({ groupBy: e.target.value })}>
            {groupLabels.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          Hook
          <input
            type="search"
            value={params.hook}
            placeholder="hook or configuration name"
            onChange={(e) => setParams({ hook: e.target.value })}
          />
        </label>
        {only ? (
          <span className="filter-chip" data-testid="only-hook">
            only <span className="mono">{only.name}</span>
            {only.configuration ? (
              <>
                {" "}
                in <span className="mono">{only.configuration}</span>
              </>
            ) : null}
            <button
              type="button"
              aria-label="Show every hook"
              title="Show every hook"
              onClick={() => setParams({ only: "" })}
            >
              ×
            </button>
          </span>
        ) : null}
        <label>
          Namespace
          <input
            type="search"
            value={params.namespace}
            placeholder="namespace name"
            onChange={(e) => setParams({ namespace: e.target.value })}
          />
        </label>
        <label>
          Failure policy
          <select
            value={params.failurePolicy}
            onChange={(e) =>
              setParams({ failurePolicy: e.target.value as MatrixParams["failurePolicy"] })
            }
          >
            <option value="">any</option>
            <option value="Fail">Fail</option>
            <option value="Ignore">Ignore</option>
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={params.all}
            onChange={(e) => setParams({ all: e.target.checked })}
          />
          hooks whose rules do not match
        </label>
      </div>
      {state.error && <ErrorBox error={state.error} />}
      {fresh.length > 0 && (
        <div className="callout" role="status">
          <strong>New namespaces without a {params.groupBy} label, intercepted fail-closed:</strong>{" "}
          {fresh.map((f, i) => (
            <span key={f.name}>
              {i > 0 && "; "}
              <Link href={namespaceHref(f.name)}>{f.name}</Link> by {f.hooks.join(", ")}
            </span>
          ))}
        </div>
      )}
      {!matrix ? (
        preview && preview.params === writeParams(params) && head?.context === state.context ? (
          <div onFocus={() => setPreviewFocused(true)} onBlur={() => setPreviewFocused(false)}>
            <PreviewGrid preview={preview} active={active} onActive={setActive} />
          </div>
        ) : (
          <p className="muted">Reading the cluster…</p>
        )
      ) : (
        <>
          <p className="hint legend">
            <span>
              {namespaceCount} namespaces × {cols.length} hooks for{" "}
              <strong>{describeRequest(request)}</strong>
              {request.scope === "Cluster" && " (cluster-scoped: namespaceSelectors do not apply)"}
              {request.scope === "Namespace" &&
                " (selectors see the Namespace object's own labels)"}
            </span>
            <span className="bad">● intercepted, fail-closed</span>
            <span className="warn">● intercepted, fail-open</span>
            <span className="good">○ exempt</span>
            <span>· rules do not match</span>
          </p>
          {cols.length === 0 || rows.length === 0 ? (
            <p className="muted">
              {cols.length === 0 &&
              !params.all &&
              !params.hook &&
              !params.only &&
              !params.failurePolicy
                ? `No hook's rules match ${describeRequest(request)}: tick "hooks whose rules do not match" to see every hook, or choose another request.`
                : "No hooks or namespaces match the filters: clear them above, or group by another label."}
            </p>
          ) : (
            read && (
              <MatrixGrid
                matrix={matrix}
                rows={rows}
                cols={cols}
                read={read}
                active={active}
                onActive={setActive}
                describedBy="cell-detail"
                initialFocus={previewFocused}
              />
            )
          )}
          <div id="cell-detail" className="cell-detail panel" aria-live="polite">
            {detail ? (
              <>
                <Link href={namespaceHref(detail.name)}>{detail.name}</Link> ×{" "}
                <Link href={hookHref(detail.hook.hook)}>{detail.hook.hook.name}</Link>{" "}
                {configurationHref(detail.hook.hook) && (
                  <span className="muted">
                    (
                    <Link href={configurationHref(detail.hook.hook) ?? "#"}>
                      {detail.hook.hook.configuration}
                    </Link>
                    , failurePolicy {detail.hook.failurePolicy})
                  </span>
                )}
                : <strong>{detail.why.state}</strong> — decided by{" "}
                <code>{detail.why.requirement}</code>: {detail.why.detail}
                {labelValue(state.snapshot?.namespaces?.[detail.name], params.groupBy) ===
                  undefined && <span className="muted"> · no {params.groupBy} label</span>}
              </>
            ) : (
              <span className="muted">
                Hover or focus a cell (arrow keys move) to see the selector requirement that decides
                it.
              </span>
            )}
          </div>
        </>
      )}
    </>
  );
}
