"use client";

import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import {
  isBindingBreakGlass,
  modesFor,
  type BreakGlassMode,
  type BreakGlassResource,
} from "@/lib/admission/break-glass/record";
import {
  breakGlassListQuery,
  breakGlassPreviewQuery,
  startBreakGlass,
} from "@/lib/queries/break-glass";
import { ActiveEpisode, KeptEpisode } from "./episode";
import { useServerNow } from "./time-left";

const MODES: ReadonlyArray<{ mode: BreakGlassMode; label: string; hint: string }> = [
  {
    mode: "ignore",
    label: "failurePolicy Ignore",
    hint: "a hook that fails (down, timing out) no longer refuses; one that answers still decides",
  },
  {
    mode: "exclude-namespaces",
    label: "Exclude namespaces",
    hint: "the hooks are not called in these namespaces (a NotIn term on kubernetes.io/metadata.name; existing terms kept)",
  },
  {
    mode: "grant",
    label: "Grant the breakglass verb",
    hint: "for hooks that declare the documented breakglass matchCondition: a temporary ClusterRole and ClusterRoleBinding let a group's requests skip them",
  },
  {
    mode: "warn",
    label: "Warn instead of Deny",
    hint: "validationActions Warn and Audit in place of Deny: a failing validation is told to the client and recorded in the audit log, not refused",
  },
];

const BINDING_EXCLUDE_HINT =
  "the policy is not evaluated in these namespaces (a NotIn term on kubernetes.io/metadata.name in the binding's matchResources.namespaceSelector; existing terms kept)";

/**
 * A configuration's (or an admission policy binding's) break-glass on its page: the active one
 * (time left, early revert), or the action — offered only to an identity that may patch and
 * update the object — with the controllers that will undo it named first.
 */
export function BreakGlassPanel({
  resource,
  name,
}: {
  resource: BreakGlassResource;
  name: string;
}) {
  const { context = "" } = useTabContext();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const binding = isBindingBreakGlass(resource);
  const [mode, setMode] = useState<BreakGlassMode>(modesFor(resource)[0] ?? "ignore");
  const [hook, setHook] = useState("");
  const [namespaces, setNamespaces] = useState("");
  const [group, setGroup] = useState("");
  const [reason, setReason] = useState("");
  const [minutes, setMinutes] = useState<number>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const list = useQuery({ ...breakGlassListQuery(context), enabled: context !== "" });
  const preview = useQuery({
    ...breakGlassPreviewQuery(context, resource, name, hook || undefined, mode),
    enabled: context !== "",
  });
  const now = useServerNow(list.data?.now, list.dataUpdatedAt);
  const mine = (list.data?.active ?? []).filter((e) => e.resource === resource && e.name === name);
  const kept = (list.data?.kept ?? []).filter((e) => e.resource === resource && e.name === name);
  const p = preview.data;
  const duration = minutes ?? p?.defaultMinutes ?? 30;
  const what = binding ? "binding" : "configuration";
  const hintOf = (m: BreakGlassMode) =>
    binding && m === "exclude-namespaces"
      ? BINDING_EXCLUDE_HINT
      : MODES.find((x) => x.mode === m)?.hint;

  if (mine.length > 0 || kept.length > 0)
    return (
      <div className="panel" data-testid="break-glass-panel">
        <h2>Break-glass</h2>
        {mine.map((e) => (
          <ActiveEpisode key={e.id} episode={e} now={now} />
        ))}
        {kept.map((e) => (
          <KeptEpisode key={e.id} episode={e} />
        ))}
      </div>
    );
  if (!p) return null;
  if (!p.allowed)
    return (
      <p className="hint" data-testid="break-glass-not-allowed">
        Break-glass: you may not patch and update this {what}, so it is not offered.
      </p>
    );
  return (
    <div className="panel" data-testid="break-glass-panel">
      <h2>Break-glass</h2>
      {!open ? (
        <button type="button" onClick={() => setOpen(true)} data-testid="break-glass-open">
          Let writes through for a while…
        </button>
      ) : (
        <form
          className="form-view"
          onSubmit={(ev) => {
            ev.preventDefault();
            setBusy(true);
            setError(undefined);
            startBreakGlass({
              resource,
              name,
              mode,
              ...(hook ? { hook } : {}),
              ...(mode === "exclude-namespaces"
                ? {
                    namespaces: namespaces
                      .split(/[\s,]+/)
                      .map((n) => n.trim())
                      .filter(Boolean),
                  }
                : {}),
              ...(mode === "grant" ? { group } : {}),
              reason,
              durationSeconds: Math.round(duration * 60),
            })
              .then(() => setOpen(false))
              .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
              .finally(() => {
                setBusy(false);
                void qc.invalidateQueries({ queryKey: ["break-glass"] });
              });
          }}
        >
          <div className="form-row">
            {MODES.filter((m) => p.modes.includes(m.mode)).map((m) => (
              <label key={m.mode} title={hintOf(m.mode)}>
                <input
                  type="radio"
                  name="break-glass-mode"
                  checked={mode === m.mode}
                  disabled={
                    m.mode === "grant" &&
                    (!p.grantAllowed || !p.hooks.some((h) => h.breakglassCheck))
                  }
                  onChange={() => setMode(m.mode)}
                  data-testid={`break-glass-mode-${m.mode}`}
                />
                {m.label}
              </label>
            ))}
          </div>
          <p className="hint">{hintOf(mode)}</p>
          {p.binding ? (
            <p className="hint" data-testid="break-glass-binding-now">
              Binds policy {p.binding.policyName || "?"}; validationActions now{" "}
              {(p.binding.validationActions ?? []).join(", ") || "not set"}. The exact previous
              state is restored at the end, unless someone changes it meanwhile.
            </p>
          ) : null}
          <div className="form-row">
            {binding ? null : (
              <label>
                Hooks
                <select value={hook} onChange={(e) => setHook(e.target.value)}>
                  <option value="">every hook of {name}</option>
                  {p.hooks.map((h) => (
                    <option key={h.name} value={h.name}>
                      {h.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {mode === "exclude-namespaces" ? (
              <label>
                Namespaces
                <input
                  value={namespaces}
                  onChange={(e) => setNamespaces(e.target.value)}
                  placeholder="shop, payments"
                  required
                  data-testid="break-glass-namespaces"
                />
              </label>
            ) : null}
            {mode === "grant" ? (
              <label>
                Group
                <input value={group} onChange={(e) => setGroup(e.target.value)} required />
              </label>
            ) : null}
            <label>
              Minutes
              <input
                type="number"
                min={1}
                max={p.maxMinutes}
                value={duration}
                onChange={(e) => setMinutes(Number(e.target.value))}
                required
              />
            </label>
          </div>
          <div className="form-row">
            <label>
              Reason
              <input
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                required
                size={60}
                data-testid="break-glass-reason"
              />
            </label>
          </div>
          {p.warnings.length > 0 ? (
            <div className="warn" data-testid="break-glass-warnings">
              <strong>Controllers will undo this:</strong>
              <ul>
                {p.warnings.map((w, i) => (
                  <li key={`${w.who}-${i}`}>
                    {w.text}
                    {w.emergency.length > 0 ? (
                      <ul>
                        {w.emergency.map((x) => (
                          <li key={x}>{x}</li>
                        ))}
                      </ul>
                    ) : null}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <div className="actions">
            <button type="submit" disabled={busy} data-testid="break-glass-submit">
              {busy ? "Breaking the glass…" : `Let writes through for ${duration} min`}
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
          {error ? <p className="bad">{error}</p> : null}
        </form>
      )}
    </div>
  );
}
