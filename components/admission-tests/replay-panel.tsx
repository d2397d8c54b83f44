"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MAX_REPLAY_REQUESTS, type ReplayResponse } from "@/lib/api/admission-tests";
import { groupSentence, type ChangeKind } from "@/lib/replay/replay-result";
import { caseListKey, caseListQuery, deleteCase, replayEdit } from "@/lib/queries/admission-tests";
import type { AdmissionResource } from "@/lib/webhooks/resource-kinds";
import { ErrorBox } from "@/components/ui/error-box";
import { downloadCases } from "./download";

const KIND_TEXT: Record<ChangeKind, string> = {
  "newly-skipped": "newly skipped",
  "newly-called": "newly called",
  "newly-undecided": "newly undecided",
  "no-longer-undecided": "now decided",
  "newly-denied": "newly denied",
  "no-longer-denied": "no longer denied",
  "newly-warned": "newly warned",
  "no-longer-warned": "no longer warned",
};

/** The listed requests the edit makes admission refuse, each with the refusal's message. */
function NewlyDenied({ r }: { r: ReplayResponse }) {
  const denials = r.changed.flatMap((c) =>
    c.changes.filter((x) => x.kind === "newly-denied").map((x) => ({ c, x })),
  );
  if (denials.length === 0) return null;
  return (
    <section className="stack" aria-label="Newly denied requests" data-testid="newly-denied">
      <h3>Newly denied</h3>
      <ul className="findings">
        {denials.map(({ c, x }) => (
          <li key={`${c.id}/${x.hook.key}`} data-testid="newly-denied-request">
            <span className="mono">{c.title}</span>{" "}
            <span className="muted">({c.source === "case" ? "kept case" : "from the feed"})</span>{" "}
            by <span className="mono">{x.hook.label.replace(/^\S+ /, "")}</span>:{" "}
            <span className="mono">{x.reason}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Most group sentences shown (all are counted). */
const SHOWN_GROUPS = 20;

const clock = (t: number) => new Date(t).toISOString().replace("T", " ").slice(0, 16);

/** The configuration whose kept cases the edit replays (a binding's: its policy's). */
function ownerOf(
  resource: AdmissionResource,
  name: string,
  object: Record<string, unknown> | undefined,
): { resource: string; name: string } | undefined {
  if (resource.endsWith("bindings")) {
    const spec = object?.spec as { policyName?: unknown } | undefined;
    const policy = typeof spec?.policyName === "string" ? spec.policyName : "";
    // validatingadmissionpolicybindings → validatingadmissionpolicies
    return policy ? { resource: resource.replace(/ybindings$/, "ies"), name: policy } : undefined;
  }
  return name ? { resource, name } : undefined;
}

function KeptCases({
  context,
  owner,
}: {
  context: string;
  owner: { resource: string; name: string };
}) {
  const client = useQueryClient();
  const list = useQuery(caseListQuery(context, owner));
  const forget = useMutation({
    mutationFn: deleteCase,
    onSuccess: () => client.invalidateQueries({ queryKey: caseListKey(context, owner) }),
  });
  const cases = list.data?.cases ?? [];
  return (
    <details data-testid="kept-cases">
      <summary>
        {list.isPending
          ? "Reading kept cases…"
          : `${cases.length} kept ${cases.length === 1 ? "case" : "cases"}`}{" "}
        for <span className="mono">{owner.name}</span>
      </summary>
      {list.error ? <ErrorBox error={list.error} /> : null}
      {cases.length > 0 ? (
        <>
          <button
            type="button"
            onClick={() =>
              downloadCases(
                cases.map((c) => c.case),
                owner.name,
              )
            }
          >
            Download all as YAML
          </button>
          <ul className="findings">
            {cases.map((c) => (
              <li key={c.id}>
                <span className="mono">{c.case.name}</span>{" "}
                <span className="muted">
                  ({c.case.source?.from ?? "case"}, {clock(c.created)})
                </span>{" "}
                <button
                  type="button"
                  onClick={() => forget.mutate(c.id)}
                  disabled={forget.isPending}
                >
                  Forget
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {forget.error ? <ErrorBox error={forget.error} /> : null}
    </details>
  );
}

function Result({ r }: { r: ReplayResponse }) {
  const total = r.replayed.cases + r.replayed.feed;
  return (
    <div className="stack" data-testid="replay-result">
      <p role="status" className={r.changedCount > 0 ? "callout" : "notice"}>
        Replayed {r.replayed.cases.toLocaleString("en-US")} kept{" "}
        {r.replayed.cases === 1 ? "case" : "cases"} and {r.replayed.feed.toLocaleString("en-US")}{" "}
        {r.replayed.feed === 1 ? "request" : "requests"} from the decision feed
        {r.feedSpan ? ` (${clock(r.feedSpan.from)} to ${clock(r.feedSpan.to)})` : ""} in{" "}
        {Math.round(r.millis)} ms:{" "}
        {r.changedCount === 0
          ? "no outcome changes."
          : `this edit changes the outcome of ${r.changedCount.toLocaleString("en-US")} of ${total.toLocaleString("en-US")}.`}
      </p>
      {r.groups.length > 0 ? (
        <ul className="findings" aria-label="Changes by operation, resource and namespace">
          {r.groups.slice(0, SHOWN_GROUPS).map((g) => (
            <li key={`${g.kind}/${g.hook.key}/${g.operation}/${g.resource}/${g.namespace}`}>
              {groupSentence(g)}
            </li>
          ))}
          {r.groups.length > SHOWN_GROUPS ? (
            <li className="muted">…and {r.groups.length - SHOWN_GROUPS} more groups.</li>
          ) : null}
        </ul>
      ) : null}
      <ul className="hint" aria-label="Replay notes">
        {r.currentLabels > 0 ? (
          <li>
            {r.currentLabels.toLocaleString("en-US")} requests were replayed with their
            namespace&apos;s current labels: the labels at decision time are not known.
          </li>
        ) : null}
        {r.withoutObject > 0 ? (
          <li>
            {r.withoutObject.toLocaleString("en-US")} audit events hold no object (Metadata level):
            those requests were replayed with the object&apos;s name and namespace only.
          </li>
        ) : null}
        {r.unreadable > 0 ? (
          <li>{r.unreadable} requests could not be rebuilt and were not replayed.</li>
        ) : null}
        <li>
          The feed holds a validating webhook&apos;s calls only when it denied or failed (an allowed
          call leaves no mark in the audit event); keep cases to replay the others.
        </li>
        {r.notices.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
      <NewlyDenied r={r} />
      {r.changed.length > 0 ? (
        <div className="stack" aria-label="Changed requests">
          {r.changed.map((c) => (
            <details key={c.id} data-testid="changed-request">
              <summary>
                <span className="mono">{c.title}</span>{" "}
                <span className="muted">
                  {c.source === "case" ? "kept case" : "from the feed"}, {clock(c.time)}:
                </span>{" "}
                {c.changes
                  .map((x) => `${x.hook.label.replace(/^\S+ /, "")} ${KIND_TEXT[x.kind]}`)
                  .join("; ")}
              </summary>
              <ul className="findings">
                {c.changes.map((x) => (
                  <li key={`${x.kind}/${x.hook.key}`}>
                    <span className="badge">{KIND_TEXT[x.kind]}</span>{" "}
                    <span className="mono">{x.hook.label}</span>: {x.reason}
                  </li>
                ))}
                {c.labelsFrom === "current" ? (
                  <li className="muted">
                    Namespace labels: the current ones (labels at decision time unknown).
                  </li>
                ) : null}
                {!c.objectKnown ? (
                  <li className="muted">The object is known by name and namespace only.</li>
                ) : null}
              </ul>
            </details>
          ))}
          {r.changedCount > r.changed.length ? (
            <p className="muted">
              {r.changedCount - r.changed.length} more changed requests are counted above, not
              listed.
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/**
 * Replay before apply: the configuration's kept cases and the feed's last requests for its
 * hooks, predicted against the cluster as it is and as this edit would leave it; the requests
 * whose outcome changes, grouped, each with the predictor's reason.
 */
export function ReplayPanel({
  context,
  resource,
  name,
  text,
  readObject,
}: {
  context: string;
  resource: AdmissionResource;
  /** The stored object's name; undefined when creating. */
  name: string | undefined;
  text: string;
  readObject(text: string): { object: Record<string, unknown> } | { error: string };
}) {
  const [limit, setLimit] = useState(MAX_REPLAY_REQUESTS);
  const [ranOn, setRanOn] = useState<string | undefined>(undefined);
  const run = useMutation({
    mutationFn: ({ object }: { object: Record<string, unknown> }) =>
      replayEdit({ resource, name: name ?? "", object, limit }),
  });
  const read = readObject(text);
  const object = "object" in read ? read.object : undefined;
  const owner = ownerOf(resource, name ?? "", object);
  const stale = ranOn !== undefined && ranOn !== text;
  return (
    <section className="panel" aria-label="Replay before apply">
      <h2>Replay before apply</h2>
      <p className="hint">
        Runs the kept test cases and the last requests the decision feed holds for these hooks
        against this edit and against the live version, and shows every request whose outcome
        changes (newly skipped, newly called, newly denied or warned by a validating admission
        policy, whose validations are evaluated here). Nothing is sent to the cluster.
      </p>
      <div className="row">
        <label>
          Feed requests{" "}
          <input
            type="number"
            min={0}
            max={MAX_REPLAY_REQUESTS}
            value={limit}
            aria-label="Feed requests to replay"
            onChange={(e) =>
              setLimit(Math.max(0, Math.min(MAX_REPLAY_REQUESTS, Number(e.target.value) || 0)))
            }
          />
        </label>{" "}
        <button
          type="button"
          disabled={!object || run.isPending}
          onClick={() => {
            if (!object) return;
            setRanOn(text);
            run.mutate({ object });
          }}
        >
          {run.isPending ? "Replaying…" : "Replay"}
        </button>
        {"error" in read ? (
          <span className="muted"> The YAML cannot be read: {read.error}</span>
        ) : null}
      </div>
      {owner ? <KeptCases context={context} owner={owner} /> : null}
      {stale && run.data ? (
        <p className="alert" role="status">
          The edit changed since this replay: replay again to see what it does now.
        </p>
      ) : null}
      {run.error ? <ErrorBox error={run.error} /> : null}
      {run.data ? <Result r={run.data} /> : null}
    </section>
  );
}
