import Link from "next/link";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import { proposedEditHref } from "@/lib/namespaces/links";
import { FindingEngine } from "@/components/engines/finding-engine";

/**
 * Lint findings about one hook (or one engine), each with its concrete fix and, for an engine's
 * object, the engine policy behind it.
 */
export function HookFindings({ findings }: { findings: LintFinding[] | undefined }) {
  if (!findings) return <p className="muted">Linting…</p>;
  if (findings.length === 0) return <p className="hint">No findings.</p>;
  return (
    <ul className="findings">
      {findings.map((f, i) => (
        <li key={`${f.id}-${i}`}>
          <span className={`sev sev-${f.severity}`}>{f.severity}</span>
          <span className="mono muted">{f.id}</span> <strong>{f.title}</strong>
          <FindingEngine finding={f} />
          <div>{f.explanation}</div>
          {f.fix ? (
            <div className="hint">
              Fix: {f.fix.description}
              {f.fix.jsonPatch ? (
                <pre className="cel">{JSON.stringify(f.fix.jsonPatch, null, 2)}</pre>
              ) : null}
              {proposedEditHref(f.fix) ? (
                <Link href={proposedEditHref(f.fix) ?? "#"}>Open as a proposed edit</Link>
              ) : null}
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
