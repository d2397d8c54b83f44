"use client";

import { DiffEditor } from "@monaco-editor/react";
import "./monaco-setup";
import { useMonacoTheme } from "./use-monaco-theme";

/** A read-only side-by-side YAML diff. */
export function YamlDiff({
  original,
  modified,
  label,
  height = 360,
  id,
}: {
  original: string;
  modified: string;
  label: string;
  height?: number;
  id: string;
}) {
  const theme = useMonacoTheme();
  return (
    <div className="diff-frame" style={{ height }} aria-label={label} data-testid={`diff-${id}`}>
      <DiffEditor
        theme={theme}
        original={original}
        modified={modified}
        language="yaml"
        originalModelPath={`inmemory://diff/${id}/original.yml`}
        modifiedModelPath={`inmemory://diff/${id}/modified.yml`}
        options={{
          readOnly: true,
          renderSideBySide: true,
          minimap: { enabled: false },
          fontSize: 12,
          lineHeight: 18,
          scrollBeyondLastLine: false,
          automaticLayout: true,
          hideUnchangedRegions: { enabled: true, contextLineCount: 2, minimumLineCount: 4 },
        }}
        height="100%"
      />
    </div>
  );
}
