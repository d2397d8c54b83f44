"use client";

import { useEffect, useRef } from "react";
import Editor, { type OnMount } from "@monaco-editor/react";
import { monaco } from "./monaco-setup";
import { useMonacoTheme } from "./use-monaco-theme";
import type { MarkerData } from "@/lib/webhooks/editor-markers";

/** Marker owners: monaco-yaml owns "yaml"; we set "admission" (validator) and "apiserver". */
export type OwnedMarkers = Partial<Record<"admission" | "apiserver", MarkerData[]>>;

/** Where YamlEditor should scroll (and, with focus, put the cursor). */
export interface RevealRequest {
  line: number;
  column?: number;
  focus: boolean;
}

/** A marker as shown in the problems list, whoever set it. */
export interface ShownMarker {
  owner: string;
  line: number;
  column: number;
  message: string;
  severity: "error" | "warning" | "info";
}

/**
 * In the editor Tab indents, so a keyboard cannot leave it by Tab alone: Escape then Tab (or
 * Shift+Tab) leaves it, and Monaco's tab-focus toggle works too; both are said where keyboard
 * and screen-reader users meet the editor.
 */
const TAB_HELP =
  "Tab indents here; Esc then Tab leaves the editor (Esc then Shift+Tab goes back). Ctrl+M (Ctrl+Shift+M on a Mac) makes Tab move focus instead, until pressed again.";

function severityOf(s: MarkerData["severity"]): monaco.MarkerSeverity {
  return s === "warning" ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Error;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** Focuses the first focusable element after `frame` (before it, `backwards`) in page order. */
function focusOutside(frame: HTMLElement, backwards: boolean): void {
  const all = [...document.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !frame.contains(el) && el.getClientRects().length > 0,
  );
  const after = (el: HTMLElement) =>
    (frame.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  // Past the last focusable element the page starts again, as Tab does at the end of a page.
  const target = backwards
    ? (all.filter((el) => !after(el)).at(-1) ?? all.at(-1))
    : (all.find(after) ?? all[0]);
  target?.focus();
}

/**
 * The YAML editor: text in/out, markers per owner, every model marker reported back. Tab indents
 * inside it, so Escape then Tab (or Shift+Tab) leaves it: without that a keyboard user could not
 * get past the editor to the page's actions.
 */
export function YamlEditor({
  path,
  value,
  onChange,
  markers,
  onMarkers,
  readOnly,
  reveal,
}: {
  /** Model path; `…/<resource>.yaml` picks the cluster schema. */
  path: string;
  value: string;
  onChange: (text: string) => void;
  markers: OwnedMarkers;
  onMarkers: (m: ShownMarker[]) => void;
  readOnly: boolean;
  /**
   * A line to scroll to; with `focus`, the cursor goes there and the editor takes focus (a jump
   * from the problems list). Each request is a new object, so jumping to the same line again
   * works too.
   */
  reveal?: RevealRequest;
}) {
  const theme = useMonacoTheme();
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const frameRef = useRef<HTMLDivElement>(null);
  const onMarkersRef = useRef(onMarkers);
  useEffect(() => {
    onMarkersRef.current = onMarkers;
  }, [onMarkers]);

  const onMount: OnMount = (editor) => {
    editorRef.current = editor as unknown as monaco.editor.IStandaloneCodeEditor;
  };

  useEffect(() => {
    const report = () => {
      const model = editorRef.current?.getModel() ?? monaco.editor.getModel(monaco.Uri.parse(path));
      if (!model) return;
      onMarkersRef.current(
        monaco.editor.getModelMarkers({ resource: model.uri }).map((m) => ({
          owner: m.owner,
          line: m.startLineNumber,
          column: m.startColumn,
          message: m.message,
          severity:
            m.severity === monaco.MarkerSeverity.Error
              ? "error"
              : m.severity === monaco.MarkerSeverity.Warning
                ? "warning"
                : "info",
        })),
      );
    };
    const sub = monaco.editor.onDidChangeMarkers(report);
    return () => sub.dispose();
  }, [path]);

  useEffect(() => {
    const model = monaco.editor.getModel(monaco.Uri.parse(path));
    if (!model) return;
    for (const owner of ["admission", "apiserver"] as const) {
      monaco.editor.setModelMarkers(
        model,
        owner,
        (markers[owner] ?? []).map((m) => ({
          startLineNumber: m.startLineNumber,
          startColumn: m.startColumn,
          endLineNumber: m.endLineNumber,
          endColumn: m.endColumn,
          message: m.message,
          severity: severityOf(m.severity),
          source: owner,
        })),
      );
    }
  });

  useEffect(() => {
    const editor = editorRef.current;
    if (!reveal || !editor) return;
    editor.revealLineInCenter(reveal.line);
    if (reveal.focus) {
      editor.setPosition({ lineNumber: reveal.line, column: reveal.column ?? 1 });
      editor.focus();
    }
  }, [reveal]);

  // Escape, then Tab: seen on the frame in the capture phase, before the editor indents.
  useEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    let escaped = false;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        escaped = true;
        return;
      }
      if (e.key === "Tab" && escaped && !e.altKey && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        e.stopPropagation();
        focusOutside(frame, e.shiftKey);
      }
      if (e.key !== "Shift") escaped = false;
    };
    frame.addEventListener("keydown", onKey, true);
    return () => frame.removeEventListener("keydown", onKey, true);
  }, []);

  return (
    <>
      <p className="hint" data-testid="editor-keys">
        {TAB_HELP}
      </p>
      <div ref={frameRef} className="editor-frame" data-testid="yaml-editor">
        <Editor
          theme={theme}
          path={path}
          language="yaml"
          value={value}
          onChange={(v) => onChange(v ?? "")}
          onMount={onMount}
          options={{
            readOnly,
            minimap: { enabled: false },
            fontSize: 12,
            lineHeight: 18,
            scrollBeyondLastLine: false,
            tabSize: 2,
            renderWhitespace: "boundary",
            quickSuggestions: { other: true, comments: false, strings: true },
            automaticLayout: true,
            ariaLabel: `YAML editor. ${TAB_HELP}`,
          }}
          height="100%"
        />
      </div>
    </>
  );
}
