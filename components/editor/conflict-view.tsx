"use client";

import { YamlDiff } from "./yaml-diff";

/**
 * The 409 view: what you started from, your edit, and what is stored now, as two diffs against
 * the common base. Nothing is written until the admin chooses. It opens whether Apply or a dry
 * run met the 409; after a dry run, the merge is dry-run again rather than written.
 */
export function ConflictView({
  by,
  base,
  mine,
  theirs,
  theirsVersion,
  onReapply,
  onDiscard,
  pending,
  conflicts,
}: {
  /** The button that met the 409. */
  by: "apply" | "dry-run";
  base: string;
  mine: string;
  theirs: string;
  theirsVersion: string;
  onReapply: () => void;
  onDiscard: () => void;
  pending: boolean;
  conflicts: string[];
}) {
  return (
    <section className="panel conflict" aria-label="Conflict">
      <h2 className="bad">Someone else changed this configuration while you were editing</h2>
      <p>
        Your {by === "apply" ? "apply" : "dry run"} was refused (409 Conflict): the stored object is
        now at resourceVersion <span className="mono">{theirsVersion}</span>. Nothing was
        overwritten. Compare the three versions, then{" "}
        {by === "apply"
          ? "re-apply your changes onto the stored version"
          : "merge your changes onto the stored version and dry-run the result (Apply writes it)"}{" "}
        or discard them.
      </p>
      <div className="three-way">
        <div>
          <h3>Their change: what you started from → what is stored now</h3>
          <YamlDiff
            id="theirs"
            label="Their change"
            original={base}
            modified={theirs}
            height={320}
          />
        </div>
        <div>
          <h3>Your change: what you started from → your edit</h3>
          <YamlDiff id="mine" label="Your change" original={base} modified={mine} height={320} />
        </div>
      </div>
      {conflicts.length > 0 ? (
        <p className="warn" role="alert">
          Both sides changed {conflicts.join(", ")}: merging keeps your value there; the merged text
          opens in the editor for review.
        </p>
      ) : null}
      <div className="actions">
        <button type="button" className="primary" onClick={onReapply} disabled={pending}>
          {by === "apply"
            ? `Re-apply my changes onto version ${theirsVersion}`
            : `Merge my changes onto version ${theirsVersion} and dry run`}
        </button>
        <button type="button" onClick={onDiscard} disabled={pending}>
          Discard my edit and load the stored version
        </button>
      </div>
    </section>
  );
}
