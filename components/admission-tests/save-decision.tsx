"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { caseListKey, saveCase } from "@/lib/queries/admission-tests";
import { objectPagePath, isAdmissionResource } from "@/lib/webhooks/resource-kinds";
import { ErrorBox } from "@/components/ui/error-box";
import { downloadCases } from "./download";

/**
 * "Save as test" on a decision: the server makes the case from the decision's audit event, the
 * namespace's labels it knows now and the prediction, and keeps it for the decision's webhook
 * configuration or policy, where the editor's replay finds it. It can then be downloaded.
 */
export function SaveDecisionAsTest({ context, id }: { context: string; id: number }) {
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: () => saveCase({ decision: id }),
    onSuccess: (stored) =>
      client.invalidateQueries({ queryKey: caseListKey(context, stored.owner) }),
  });
  const stored = save.data;
  return (
    <div className="stack" data-testid="save-as-test">
      <div>
        <button type="button" onClick={() => save.mutate()} disabled={save.isPending || !!stored}>
          {stored ? "Saved as a test" : save.isPending ? "Saving…" : "Save as test"}
        </button>{" "}
        <span className="hint">
          The request, its namespace&apos;s labels as known now, and the hooks and policies it calls
          and skips, kept for replay when the configuration is edited.
        </span>
      </div>
      {stored ? (
        <p className="notice" role="status">
          Kept as case {stored.id} for{" "}
          {isAdmissionResource(stored.owner.resource) ? (
            <a className="mono" href={objectPagePath(stored.owner.resource, stored.owner.name)}>
              {stored.owner.name}
            </a>
          ) : (
            <span className="mono">{stored.owner.name}</span>
          )}{" "}
          <span className="mono">({stored.case.name})</span>.{" "}
          <button type="button" onClick={() => void downloadCases([stored.case], stored.case.name)}>
            Download YAML
          </button>
        </p>
      ) : null}
      {save.error ? <ErrorBox error={save.error} /> : null}
    </div>
  );
}
