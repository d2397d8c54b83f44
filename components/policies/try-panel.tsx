"use client";

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { readEditorYaml } from "@/lib/webhooks/yaml-text";
import { objectChanges } from "@/lib/policies/object-changes";
import {
  deniedByAdmission,
  dryRunRefusedBy,
  namedBinding,
  type TryResult,
} from "@/lib/policies/try-model";
import { tryRequest } from "@/lib/queries/policies";
import { ErrorBox } from "@/components/ui/error-box";

/**
 * Try a request against the cluster: a dry-run create of an object through the apiserver, as
 * this tab's identity. Every policy and webhook runs, nothing is stored. Shows the apiserver's
 * verdict, the warnings, what mutations changed, and which of this policy's bindings the
 * apiserver names.
 */
export function TryPanel({
  example,
  policy,
  bindings,
}: {
  example: string;
  policy: string;
  bindings: string[];
}) {
  const [text, setText] = useState(example);
  const [sent, setSent] = useState<unknown>(undefined);
  const [parseError, setParseError] = useState("");
  const run = useMutation({ mutationFn: (o: unknown) => tryRequest(o) });

  const submit = () => {
    const r = readEditorYaml(text);
    const o = r.ok ? r.value : undefined;
    if (!o || typeof o !== "object" || Array.isArray(o)) {
      setParseError(
        `The YAML cannot be sent (${r.ok ? "the document is not an object" : r.error}): nothing was sent.`,
      );
      return;
    }
    setParseError("");
    setSent(o);
    run.mutate(o);
  };
  const r: TryResult | undefined = run.data;
  const named = [...(r?.error ? [r.error.message] : []), ...(r?.warnings ?? [])].flatMap((m) => {
    const n = namedBinding(m);
    return n && n.policy === policy ? [n.binding] : [];
  });
  const changes = r?.allowed ? objectChanges(sent, r.object) : [];
  const unjudgedBy = r ? dryRunRefusedBy(r) : undefined;
  return (
    <section className="panel" aria-label="Try a request">
      <h2>
        Try a request{" "}
        <span className="hint">
          dry-run create through the apiserver as you: every policy and webhook runs, nothing is
          stored
        </span>
      </h2>
      <label className="sr-only" htmlFor="try-object">
        Object to create (YAML)
      </label>
      <textarea
        id="try-object"
        className="mono"
        rows={Math.min(16, Math.max(6, text.split("\n").length + 1))}
        cols={80}
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="actions">
        <button type="button" onClick={submit} disabled={run.isPending}>
          Dry run create
        </button>
      </div>
      {parseError ? <p className="alert">{parseError}</p> : null}
      {run.error ? <ErrorBox error={run.error} /> : null}
      {r ? (
        <div className="stack" data-testid="try-result">
          {r.allowed ? (
            <p className="good" role="status">
              Admitted: the apiserver would create this {r.resource}
              {r.namespace ? ` in ${r.namespace}` : ""}.
            </p>
          ) : unjudgedBy !== undefined ? (
            <div role="alert" className="warn">
              <strong>Not judged: the apiserver refused the dry run itself.</strong>{" "}
              <span data-testid="try-denial">{r.error?.message}</span>
              <p>
                Webhook <span className="mono">{unjudgedBy}</span> declares side effects
                (sideEffects Unknown or Some), so the apiserver does not call it on a dry run and
                refuses every dry run it matches, even with failurePolicy Ignore. A real create
                calls it as usual: this says nothing about whether one would be admitted.
              </p>
            </div>
          ) : deniedByAdmission(r) ? (
            <div role="alert" className="alert">
              <strong>
                Denied ({r.error?.status} {r.error?.reason}):
              </strong>{" "}
              <span data-testid="try-denial">{r.error?.message}</span>
            </div>
          ) : (
            <div role="alert" className="warn">
              <strong>
                Not judged: the apiserver refused the request itself ({r.error?.status}{" "}
                {r.error?.reason}):
              </strong>{" "}
              <span data-testid="try-denial">{r.error?.message}</span>
              <p>
                {r.error?.status === 409
                  ? "An object of that name exists already: change metadata.name (or use generateName) to try a create."
                  : "No policy or webhook refused it: fix what the message names, then try again."}
              </p>
            </div>
          )}
          {r.warnings.length > 0 ? (
            <div>
              <h3>Warnings</h3>
              <ul>
                {r.warnings.map((w, i) => (
                  <li key={i} className="warn" data-testid="try-warning">
                    {w}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {bindings.length > 0 ? (
            <p>
              {named.length > 0 ? (
                <>
                  Matched through binding{" "}
                  {named.map((b) => (
                    <strong key={b} className="mono" data-testid="matched-binding">
                      {b}{" "}
                    </strong>
                  ))}
                  (named by the apiserver).
                </>
              ) : (
                <span className="muted">
                  The apiserver named none of this policy&apos;s bindings
                  {r.allowed ? " (a mutation or an Audit action leaves no message)" : ""}.
                </span>
              )}
            </p>
          ) : null}
          {r.allowed ? (
            <div>
              <h3>What admission changed</h3>
              {changes.length === 0 ? (
                <p className="muted">Nothing beyond what every create sets.</p>
              ) : (
                <table className="data" aria-label="Changes made by admission">
                  <tbody>
                    {changes.map((c) => (
                      <tr key={c.path} data-testid="try-change">
                        <td className="mono">{c.path}</td>
                        <td>{c.change}</td>
                        <td className="mono">{c.value ?? ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
