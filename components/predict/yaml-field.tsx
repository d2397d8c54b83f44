"use client";

import type { InputProblem } from "@/lib/predict/page-request";

/** The line of `text` a problem points at, with a caret under its column. */
function excerpt(text: string, line: number, column: number): string {
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) return "";
    start = nl + 1;
  }
  const end = text.indexOf("\n", start);
  const src = text.slice(start, end < 0 ? undefined : end).slice(0, 200);
  return `${src}\n${" ".repeat(Math.max(0, Math.min(column - 1, 200)))}^`;
}

/** A YAML/JSON textarea whose parse error is shown where it is: line, column and the line itself. */
export function YamlField({
  id,
  label,
  value,
  problem,
  onChange,
  rows,
}: {
  id: string;
  label: string;
  value: string;
  problem: InputProblem | undefined;
  onChange: (v: string) => void;
  rows: number;
}) {
  const errorId = `${id}-error`;
  return (
    <div className="yaml-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="mono"
        value={value}
        rows={rows}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? errorId : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {problem ? (
        <div id={errorId} className="yaml-error" role="alert">
          <strong>
            {problem.line !== undefined
              ? `Line ${problem.line}, column ${problem.column ?? 1}: `
              : ""}
            {problem.message}
          </strong>
          {problem.line !== undefined ? (
            <pre className="mono">{excerpt(value, problem.line, problem.column ?? 1)}</pre>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
