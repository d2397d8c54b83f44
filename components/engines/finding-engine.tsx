import Link from "next/link";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import { describeSource, type OwnedKind } from "@/lib/admission/engines/types";
import { engineLabel, enginesPageHref, ownedPageHref } from "@/lib/engines/view";

const WEBHOOK_KINDS = new Set<string>([
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
]);

/**
 * The policy engine behind a lint finding: the engine, the engine policy to change (its row on
 * the Engines page) and the hooks the finding is about (their configuration's page). Nothing for
 * a finding about no engine's object.
 */
export function FindingEngine({ finding: f }: { finding: LintFinding }) {
  if (!f.engine) return null;
  const hooks = f.objects.filter((o) => o.hook !== undefined && WEBHOOK_KINDS.has(o.kind));
  return (
    <div className="hint" data-testid="finding-engine">
      {engineLabel(f.engine)}
      {f.sourcePolicy ? (
        <>
          {" · "}
          <Link href={enginesPageHref(f.sourcePolicy)}>{describeSource(f.sourcePolicy)}</Link>
        </>
      ) : null}
      {hooks.map((o) => (
        <span key={`${o.kind}/${o.name}/${o.hook ?? ""}`}>
          {" · hook "}
          <Link className="mono" href={ownedPageHref(o.kind as OwnedKind, o.name)}>
            {o.hook}
          </Link>
        </span>
      ))}
    </div>
  );
}
