"use client";

import dynamic from "next/dynamic";
import { useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { kindInfoFor } from "@/lib/admission/validate/kind-info";
import { validateObject } from "@/lib/admission/validate/validate-object";
import { isObject, type JsonValue } from "@/lib/admission/validate/json";
import { readEditorYaml, toEditorYaml } from "@/lib/webhooks/yaml-text";
import { writeConfiguration } from "@/lib/queries/webhooks";
import type { ConfigObject } from "@/lib/api/webhooks";
import { ErrorBox } from "@/components/ui/error-box";
import { LEGACY_KIND_OF, type LegacyResource } from "@/lib/k8s/legacy-kinds";

// Monaco (the diff) loads only when an editor is open: the list stays light.
const YamlDiff = dynamic(() => import("@/components/editor/yaml-diff").then((m) => m.YamlDiff), {
  ssr: false,
  loading: () => <p className="muted">Loading the diff…</p>,
});

/** A new object of each historical kind, as the editor starts it. */
function template(resource: LegacyResource, apiVersion: string): ConfigObject {
  const kind = LEGACY_KIND_OF[resource].kind;
  if (resource === "initializerconfigurations")
    return {
      apiVersion,
      kind,
      metadata: { name: "" },
      initializers: [
        {
          name: "example.initializers.example.com",
          rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
        },
      ],
    };
  if (LEGACY_KIND_OF[resource].hooksField === "webhooks")
    return {
      apiVersion,
      kind,
      metadata: { name: "" },
      webhooks: [
        {
          name: "example.hooks.example.com",
          clientConfig: { service: { namespace: "hooks", name: "example", path: "/admit" } },
          rules: [
            { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
          ],
          failurePolicy: "Ignore",
          sideEffects: "None",
          admissionReviewVersions: ["v1beta1"],
        },
      ],
    };
  return {
    apiVersion,
    kind,
    metadata: { name: "" },
    externalAdmissionHooks: [
      {
        name: "example.hooks.example.com",
        clientConfig: { service: { namespace: "hooks", name: "example" }, caBundle: "" },
        rules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
        failurePolicy: "Ignore",
      },
    ],
  };
}

/** The editable part of a stored object: no status, no server bookkeeping. */
function editable(o: ConfigObject): ConfigObject {
  const metadata = { ...o.metadata };
  delete metadata.managedFields;
  delete metadata.creationTimestamp;
  delete metadata.generation;
  return { ...o, metadata };
}

/**
 * Create or edit one historical configuration (InitializerConfiguration,
 * ExternalAdmissionHookConfiguration, v1beta1 webhook configurations) as YAML: validated as the apiserver that served it did
 * (lib/admission), a diff against the stored object, a server-side dry run, and apply with the
 * resourceVersion precondition — a concurrent change answers 409 and nothing is overwritten.
 */
export function LegacyConfigEditor({
  resource,
  apiVersion,
  stored,
  onDone,
}: {
  resource: LegacyResource;
  /** The group/version the cluster serves the kind at. */
  apiVersion: string;
  /** The object being edited; undefined to create one. */
  stored?: ConfigObject;
  onDone: (saved: ConfigObject) => void;
}) {
  const original = useMemo(
    () => toEditorYaml(stored ? editable(stored) : template(resource, apiVersion)),
    [stored, apiVersion, resource],
  );
  const [text, setText] = useState(original);
  const read = useMemo(() => readEditorYaml(text), [text]);
  const parsed = read.ok ? read.value : undefined;
  const { kind: kindName, version } = LEGACY_KIND_OF[resource];
  const validation = useMemo(() => {
    const admissionVersion = `admissionregistration.k8s.io/${version}`;
    const kindInfo = kindInfoFor(admissionVersion, kindName);
    if (!parsed || !isObject(parsed) || !kindInfo) return undefined;
    // The historical shape is validated as admissionregistration.k8s.io/<its version>, whatever
    // group this cluster serves it in (the stored object too, for update ratcheting).
    const asAdmission: JsonValue = { ...parsed, apiVersion: admissionVersion };
    const old: JsonValue | undefined = stored
      ? ({ ...stored, apiVersion: admissionVersion } as JsonValue)
      : undefined;
    return validateObject(kindInfo, asAdmission, old);
  }, [parsed, stored, kindName, version]);
  const errors = validation?.issues.filter((i) => i.severity === "error") ?? [];
  const name = stored?.metadata?.name;
  const [dryRun, setDryRun] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const write = useMutation({
    mutationFn: (dry: boolean) =>
      writeConfiguration(resource, name, { ...(parsed as ConfigObject), apiVersion }, dry),
    onSuccess: (saved, dry) => {
      if (dry) setDryRun({ ok: true, text: toEditorYaml(editable(saved)) });
      else onDone(saved);
    },
    onError: (_e, dry) => {
      if (dry) setDryRun(undefined);
    },
  });
  const label = name ? `Edit ${name}` : `New ${kindName}`;
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
          The YAML cannot be sent{read.ok ? "" : ` (${read.error})`}.
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
          Valid for a {kindName} as its {version} apiserver checked it.
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
