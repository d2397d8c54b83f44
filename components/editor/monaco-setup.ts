"use client";
/**
 * Monaco from the installed package (no CDN), its workers bundled with the app, and monaco-yaml
 * for YAML diagnostics, completion and hover. Imported only by the editor pages (through
 * next/dynamic with ssr: false), so list pages never load it.
 */
import * as monaco from "monaco-editor";
import { loader } from "@monaco-editor/react";
import { configureMonacoYaml, type JSONSchema, type MonacoYaml } from "monaco-yaml";

declare global {
  interface Window {
    /** Exposed so end-to-end tests can read markers: a silent worker failure looks like a working editor. */
    monaco?: typeof monaco;
  }
}

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string) {
    if (label === "yaml")
      return new Worker(new URL("./yaml.worker.ts", import.meta.url), { type: "module" });
    return new Worker(new URL("./editor.worker.ts", import.meta.url), { type: "module" });
  },
};

loader.config({ monaco });

/** vs-dark with comments light enough for text contrast on its background (WCAG AA). */
monaco.editor.defineTheme("portcullis-dark", {
  base: "vs-dark",
  inherit: true,
  rules: [{ token: "comment", foreground: "8fbf7f" }],
  colors: {},
});
window.monaco = monaco;

let yaml: MonacoYaml | undefined;

/** monaco-yaml, configured once; schemas are set per editor with {@link setYamlSchema}. */
function monacoYaml(): MonacoYaml {
  yaml ??= configureMonacoYaml(monaco, {
    enableSchemaRequest: false,
    completion: true,
    hover: true,
    validate: true,
    isKubernetes: true,
    yamlVersion: "1.1",
    schemas: [],
  });
  return yaml;
}

/** Uses the cluster's own schema for models whose path ends in `<resource>.yaml`. */
export function setYamlSchema(resource: string, schema: JSONSchema | undefined): void {
  void monacoYaml().update({
    ...monacoYaml().getOptions(),
    schemas: schema
      ? [
          {
            uri: `https://portcullis.invalid/schemas/${resource}.json`,
            fileMatch: [`**/${resource}.yaml`],
            schema,
          },
        ]
      : [],
  });
}

export { monaco };
