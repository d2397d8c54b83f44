import Link from "next/link";
import type { PolicyResource } from "@/lib/webhooks/resource-kinds";
import { objectPagePath } from "@/lib/webhooks/resource-kinds";
import {
  BINDING_OF,
  bindingScope,
  paramRefSummary,
  warningsAt,
  type BindingLike,
  type PolicyLike,
} from "@/lib/policies/view";
import { exampleObject } from "@/lib/policies/examples";
import type { ParamsStatus } from "@/lib/policies/params-model";
import { paramsWarn } from "@/lib/policies/params-model";
import { Val } from "@/components/ui/default-value";
import { MatchResources } from "./match-resources";
import { CelTable } from "./cel-table";
import { TryPanel } from "./try-panel";

/** Every field of a ValidatingAdmissionPolicy or MutatingAdmissionPolicy, and its bindings. */
export function PolicyBody({
  resource,
  policy,
  bindings,
  params,
  canCreateBinding,
}: {
  resource: Exclude<PolicyResource, `${string}bindings`>;
  policy: PolicyLike;
  bindings: BindingLike[];
  params: Record<string, ParamsStatus> | undefined;
  canCreateBinding: boolean;
}) {
  const spec = policy.spec ?? {};
  const name = policy.metadata?.name ?? "";
  const mutating = resource === "mutatingadmissionpolicies";
  const bindingResource = BINDING_OF[resource];
  const placed = new Set<string>();
  const at = (ref: string) => {
    placed.add(ref);
    return warningsAt(policy, ref);
  };
  const matchConditions = (spec.matchConditions ?? []).map((c, i) => ({
    key: `mc-${i}`,
    label: c.name ?? "",
    expression: c.expression,
    warnings: at(`spec.matchConditions[${i}].expression`),
  }));
  const variables = (spec.variables ?? []).map((v, i) => ({
    key: `v-${i}`,
    label: `variables.${v.name ?? ""}`,
    expression: v.expression,
    warnings: at(`spec.variables[${i}].expression`),
  }));
  const validations = (spec.validations ?? []).map((v, i) => ({
    key: `val-${i}`,
    label: v.reason ?? "Invalid",
    expression: v.expression,
    notes: [
      ["message", v.message],
      ["messageExpression", v.messageExpression],
    ] as Array<[string, string | undefined]>,
    warnings: [
      ...at(`spec.validations[${i}].expression`),
      ...at(`spec.validations[${i}].messageExpression`),
    ],
  }));
  const audits = (spec.auditAnnotations ?? []).map((a, i) => ({
    key: `aa-${i}`,
    label: a.key ?? "",
    expression: a.valueExpression,
    warnings: at(`spec.auditAnnotations[${i}].valueExpression`),
  }));
  const mutations = (spec.mutations ?? []).map((m, i) => ({
    key: `m-${i}`,
    label: m.patchType ?? "",
    expression:
      m.patchType === "JSONPatch" ? m.jsonPatch?.expression : m.applyConfiguration?.expression,
    warnings: [
      ...at(`spec.mutations[${i}].applyConfiguration.expression`),
      ...at(`spec.mutations[${i}].jsonPatch.expression`),
    ],
  }));
  const unplaced = (policy.status?.typeChecking?.expressionWarnings ?? []).filter(
    (w) => !placed.has(w.fieldRef ?? ""),
  );
  return (
    <>
      <dl className="facts">
        <dt>failurePolicy</dt>
        <dd>
          <Val v={spec.failurePolicy} dflt="Fail" />{" "}
          <span className="hint">
            what happens when an expression errors or the params are misconfigured
          </span>
        </dd>
        <dt>paramKind</dt>
        <dd>
          {spec.paramKind ? (
            <span className="mono">
              {spec.paramKind.kind} ({spec.paramKind.apiVersion})
            </span>
          ) : (
            <span className="muted">none: the policy takes no parameters</span>
          )}
        </dd>
        {mutating ? (
          <>
            <dt>reinvocationPolicy</dt>
            <dd>
              <Val v={spec.reinvocationPolicy} />
            </dd>
          </>
        ) : null}
        <dt>type checked</dt>
        <dd>
          {mutating ? (
            <span className="muted">
              the apiserver type-checks only ValidatingAdmissionPolicies in their status
            </span>
          ) : policy.status?.observedGeneration !== undefined ? (
            <span className="mono">
              generation {policy.status.observedGeneration}
              {policy.metadata?.generation !== undefined &&
              policy.metadata.generation !== policy.status.observedGeneration
                ? ` (the policy is at ${policy.metadata.generation}: not checked yet)`
                : ""}
            </span>
          ) : (
            <span className="muted">not yet (no status)</span>
          )}
        </dd>
      </dl>
      {unplaced.length > 0 ? (
        <div className="warn" role="note">
          {unplaced.map((w, i) => (
            <p key={i} data-testid="type-warning">
              {w.fieldRef}: {w.warning}
            </p>
          ))}
        </div>
      ) : null}
      <section className="panel" aria-label="Bindings of this policy">
        <div className="page-head">
          <h2>
            Bindings{" "}
            <span className="hint">
              {bindings.length === 0
                ? "none: the policy is inert"
                : `${bindings.length} put this policy into force`}
            </span>
          </h2>
          <span className="spacer" />
          {canCreateBinding ? (
            <Link
              className="button"
              href={`/policies/new?template=${mutating ? "mutating-binding" : "validating-binding"}&policy=${encodeURIComponent(name)}`}
            >
              New binding
            </Link>
          ) : null}
        </div>
        {bindings.length === 0 ? (
          <p className="alert" role="alert" data-testid="inert">
            Inert: no {bindingResource.replace("bindings", "binding")} names this policy, so the
            apiserver never evaluates it.
          </p>
        ) : (
          <table className="data" aria-label="Bindings table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                {mutating ? null : <th scope="col">validationActions</th>}
                <th scope="col">paramRef</th>
                <th scope="col">Params</th>
                <th scope="col">Applies to</th>
              </tr>
            </thead>
            <tbody>
              {bindings.map((b) => {
                const bn = b.metadata?.name ?? "";
                const st = params?.[`${bindingResource}/${bn}`];
                return (
                  <tr key={bn} data-testid={`binding-${bn}`}>
                    <td>
                      <Link className="mono" href={objectPagePath(bindingResource, bn)}>
                        {bn}
                      </Link>
                    </td>
                    {mutating ? null : (
                      <td className="mono">{(b.spec?.validationActions ?? []).join(", ")}</td>
                    )}
                    <td className="mono">{paramRefSummary(b.spec?.paramRef)}</td>
                    <td>
                      {st ? (
                        <span className={paramsWarn(st) ? "bad" : "muted"}>{st.message}</span>
                      ) : (
                        <span className="muted">…</span>
                      )}
                    </td>
                    <td className="mono">{bindingScope(b.spec?.matchResources)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel" aria-label="Match constraints">
        <h2>
          matchConstraints{" "}
          <span className="hint">requests outside these never reach the policy</span>
        </h2>
        <MatchResources match={spec.matchConstraints} label="matchConstraints" />
      </section>
      <section className="panel" aria-label="Match conditions">
        <h2>matchConditions</h2>
        <CelTable
          rows={matchConditions}
          title="Match conditions"
          empty="No matchConditions: every request inside matchConstraints is evaluated."
        />
      </section>
      <section className="panel" aria-label="Variables">
        <h2>variables</h2>
        <CelTable rows={variables} title="Variables" empty="No variables." />
      </section>
      {mutating ? (
        <section className="panel" aria-label="Mutations">
          <h2>
            mutations <span className="hint">applied in order; the result is the new object</span>
          </h2>
          <CelTable rows={mutations} title="Mutations" empty="No mutations." />
        </section>
      ) : (
        <>
          <section className="panel" aria-label="Validations">
            <h2>
              validations{" "}
              <span className="hint">each must be true, else the bindings&apos; actions apply</span>
            </h2>
            <CelTable rows={validations} title="Validations" empty="No validations." />
          </section>
          <section className="panel" aria-label="Audit annotations">
            <h2>auditAnnotations</h2>
            <CelTable rows={audits} title="Audit annotations" empty="No auditAnnotations." />
          </section>
        </>
      )}
      <TryPanel
        example={exampleObject(spec.matchConstraints?.resourceRules)}
        policy={name}
        bindings={bindings.map((b) => b.metadata?.name ?? "")}
      />
    </>
  );
}
