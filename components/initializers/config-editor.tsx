"use client";

import dynamic from "next/dynamic";
import { useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { kindInfoFor } from "@/lib/admission/validate/kinds";
import { validateObject } from "@/lib/admission/validate/validate-object";
import { isObject, type JsonValue } from "@/lib/admission/validate/json";
import { parseEditorYaml, toEditorYaml } from "@/lib/webhooks/yaml-text";
import { writeConfiguration, type ConfigObject } from "@/lib/queries/webhooks";
import { ErrorBox } from "@/components/ui/error-box";

// Monaco (the diff) loads only when an editor is open: the list stays light.
const YamlDiff = dynamic(() => import("@/components/editor/yaml-diff").then((m) => m.YamlDiff), {
  ssr: false,
  loading: () => <p className="muted">Loading the diff…</p>,
});

const INITIALIZER_KIND = kindInfoFor(
  "admissionregistration.k8s.io/v1alpha1",
  "InitializerConfiguration",
);

/** The editable part of a stored object: no status, no server bookkeeping. */
function editable(o: ConfigObject): ConfigObject {
  const metadata = { ...o.metadata };
  delete metadata.managedFields;
  delete metadata.creationTimestamp;
  delete metadata.generation;
  return { ...o, metadata };
}

/**
 * Create or edit one InitializerConfiguration as YAML: validated as the 1.7–1.13 apiserver did
 * (lib/admission), a diff against the stored object, a server-side dry run, and apply with the
 * resourceVersion precondition — a concurrent change answers 409 and nothing is overwritten.
 */
export function InitializerConfigEditor({
  apiVersion,
  stored,
  onDone,
}: {
  /** The group/version the cluster serves the kind at. */
  apiVersion: string;
  /** The object being edited; undefined to create one. */
  stored?: ConfigObject;
  onDone: (saved: ConfigObject) => void;
}) {
  const original = useMemo(
    () =>
      stored
        ? toEditorYaml(editable(stored))
        : toEditorYaml({
            apiVersion,
            kind: "InitializerConfiguration",
            metadata: { name: "" },
            initializers: [
              {
                name: "example.initializers.example.com",
                rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
              },
            ],
          }),
    [stored, apiVersion],
  );
  const [text, setText] = useState(original);
  const parsed = useMemo(() => parseEditorYaml(text), [text]);
  const validation = useMemo(() => {
    if (!parsed || !isObject(parsed) || !INITIALIZER_KIND) return undefined;
    // The historical shape is validated as admissionregistration.k8s.io/v1alpha1, whatever
    // group this cluster serves it in.
    const asAdmission: JsonValue = {
      ...parsed,
      apiVersion: "admissionregistration.k8s.io/v1alpha1",
    };
    return validateObject(INITIALIZER_KIND, asAdmission, stored as JsonValue | undefined);
  }, [parsed, stored]);
  const errors = validation?.issues.filter((i) => i.severity === "error") ?? [];
  const name = stored?.metadata?.name;
  const [dryRun, setDryRun] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const write = useMutation({
    mutationFn: (dry: boolean) =>
      writeConfiguration(
        "initializerconfigurations",
        name,
        { ...(parsed as ConfigObject), apiVersion },
        dry,
      ),
    onSuccess: (saved, dry) => {
      if (dry) setDryRun({ ok: true, text: toEditorYaml(editable(saved)) });
      else onDone(saved);
    },
    onError: (_e, dry) => {
      if (dry) setDryRun(undefined);
    },
  });
  const label = name ? `Edit ${name}` : "New InitializerConfiguration";
  return (
    <section className="panel" aria-label={label}>
      <h3>{label}</h3>
      <textarea
        className="mono yaml-field"
        aria-label={`YAML of ${name ?? "the new configuration"}`}
        rows={Math.min(24, Math.max(10, text.split("\n").length + 1))}
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setDryRun(undefined);
        }}
      />
      {!parsed ? (
        <p className="bad" role="status">
          The YAML does not parse.
        </p>
      ) : errors.length > 0 ? (
        <ul className="problems" aria-label="Validation errors">
          {errors.map((i, n) => (
            <li key={n} className="bad">
              <span className="mono">{i.field}</span>: {i.message}
            </li>
          ))}
        </ul>
      ) : (
        <p className="good" role="status">
          Valid for an InitializerConfiguration (v1alpha1 rules: fully qualified names, no
          subresources, `*` alone).
        </p>
      )}
      {stored && text !== original ? (
        <YamlDiff
          id={`init-${name}`}
          label={`Changes to ${name}`}
          original={original}
          modified={text}
          height={260}
        />
      ) : null}
      <div className="actions">
        <button
          type="button"
          disabled={!parsed || errors.length > 0 || write.isPending}
          onClick={() => write.mutate(true)}
        >
          Dry run
        </button>
        <button
          type="button"
          className="primary"
          disabled={
            !parsed || errors.length > 0 || write.isPending || (!!stored && text === original)
          }
          onClick={() => write.mutate(false)}
        >
          {name ? `Apply to ${name}` : "Create"}
        </button>
        <button type="button" onClick={() => onDone(stored ?? {})}>
          Close
        </button>
      </div>
      {dryRun ? (
        <p className="good" role="status" aria-label="Dry run result">
          Dry run: accepted by the apiserver.
        </p>
      ) : null}
      {write.error ? <ErrorBox error={write.error} /> : null}
      {write.error && "status" in write.error && write.error.status === 409 ? (
        <p className="hint">
          Someone changed {name} since you opened it: close the editor and open it again to edit the
          stored version.
        </p>
      ) : null}
    </section>
  );
}
