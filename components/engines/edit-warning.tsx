"use client";

import Link from "next/link";
import type { EngineEditWarning } from "@/lib/engines/edit-warning";
import { engineLabel } from "@/lib/engines/view";

/**
 * Shown in the editor of an object a policy engine owns: the engine will revert a hand edit, the
 * engine policy to change instead and the engine's emergency path. When `asking`, Apply was
 * pressed: it writes only after "Apply anyway".
 */
export function EngineEditWarningPanel({
  warning,
  asking,
  onApplyAnyway,
  onCancel,
}: {
  warning: EngineEditWarning;
  asking: boolean;
  onApplyAnyway: () => void;
  onCancel: () => void;
}) {
  const o = warning.ownership;
  return (
    <div
      className={asking ? "alert" : "callout"}
      role={asking ? "alertdialog" : "note"}
      aria-label={`Owned by ${engineLabel(warning.engine)}`}
      data-testid="engine-owned"
    >
      <p>
        <strong>Owned by {engineLabel(warning.engine)}</strong>
        {warning.changeInstead ? <> · {warning.changeInstead}</> : null} · proof:{" "}
        <span title={o.evidence.join("\n")}>
          {o.certainty === "proof"
            ? "owner reference"
            : o.certainty === "strong"
              ? "the engine's own marks"
              : "its name only (a guess)"}
        </span>
      </p>
      <p>{warning.reverts}</p>
      {warning.changeInstead ? (
        <p>
          Change{" "}
          {warning.sourceHref ? (
            <Link href={warning.sourceHref}>{warning.changeInstead}</Link>
          ) : (
            warning.changeInstead
          )}{" "}
          instead.
        </p>
      ) : null}
      <details open={asking}>
        <summary>Emergency path</summary>
        <ul>
          {warning.emergency.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      </details>
      {asking ? (
        <p>
          <button type="button" className="primary" onClick={onApplyAnyway}>
            Apply anyway
          </button>{" "}
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </p>
      ) : null}
    </div>
  );
}
