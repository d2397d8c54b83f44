import type { ShownMarker } from "./yaml-editor";
import { assumedMinorText, type AssumedMinor } from "@/lib/admission/model/kubernetes-minor";

const OWNER_LABEL: Record<string, string> = {
  yaml: "YAML/schema",
  admission: "validation",
  apiserver: "apiserver",
};

/** Every marker in the editor, by line, with who raised it; click to jump. */
export function ProblemsList({
  markers,
  assumed,
  onJump,
}: {
  markers: ShownMarker[];
  /** The Kubernetes minor the validator reproduced (its messages and rules differ by minor). */
  assumed?: AssumedMinor;
  /** Puts the editor's cursor on the problem (and focus in the editor). */
  onJump: (line: number, column: number) => void;
}) {
  const sorted = [...markers].sort((a, b) => a.line - b.line || a.column - b.column);
  return (
    <section className="problems" aria-label="Problems">
      <h2>
        Problems{" "}
        <span className="muted">
          {sorted.filter((m) => m.severity === "error").length} errors,{" "}
          {sorted.filter((m) => m.severity === "warning").length} warnings
        </span>
      </h2>
      {assumed ? (
        <p className="hint" data-testid="problems-minor">
          Checked as {assumedMinorText(assumed)}.
        </p>
      ) : null}
      {sorted.length === 0 ? (
        <p className="hint">None: the validator and the YAML schema accept this text.</p>
      ) : (
        <ul>
          {sorted.map((m, i) => (
            <li key={i} className={m.severity === "error" ? "bad" : "warn"} data-owner={m.owner}>
              <button type="button" className="linkish" onClick={() => onJump(m.line, m.column)}>
                Ln {m.line}, Col {m.column}
              </button>{" "}
              <span className="badge">{OWNER_LABEL[m.owner] ?? m.owner}</span>
              <span className="msg">{m.message}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
