"use client";

import Link from "next/link";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQuery } from "@tanstack/react-query";
import { validateDocument } from "@/lib/admission/validate/validate-document";
import { apiErrorMarkers, validatorMarkers, type MarkerData } from "@/lib/webhooks/editor-markers";
import { isApiserverVerdict } from "@/lib/k8s/errors";
import {
  parseEditorYaml,
  readEditorYaml,
  setYamlPath,
  toEditorYaml,
} from "@/lib/webhooks/yaml-text";
import { merge3 } from "@/lib/webhooks/merge3";
import {
  isWebhookResource,
  KIND_OF,
  objectPagePath,
  type AdmissionResource,
} from "@/lib/webhooks/resource-kinds";
import { ApiError, callApi } from "@/lib/api/client";
import { kindSchemaQuery, writeConfiguration } from "@/lib/queries/webhooks";
import { overviewQuery } from "@/lib/queries/overview";
import { editorMinor, editorValidationOptions } from "@/lib/webhooks/editor-validation";
import { readConfigurationRoute, type ConfigObject } from "@/lib/api/webhooks";
import type { JSONSchema } from "monaco-yaml";
import { setYamlSchema } from "./monaco-setup";
import { YamlEditor, type OwnedMarkers, type RevealRequest, type ShownMarker } from "./yaml-editor";
import { YamlDiff } from "./yaml-diff";
import { ProblemsList } from "./problems-list";
import { FormView } from "./form-view";
import { DryRunResult, type DryRun } from "./dry-run-result";
import { ConflictView } from "./conflict-view";
import { ProvenanceWarning } from "./provenance-warning";
import type { ConfigurationProvenance } from "@/lib/admission/provenance/provenance";
import { useUnsavedGuard } from "./use-unsaved-guard";
import { ErrorBox } from "@/components/ui/error-box";
import { useTabs } from "@/components/ui/use-tabs";
import { engineEditWarning } from "@/lib/engines/edit-warning";
import { EngineEditWarningPanel } from "@/components/engines/edit-warning";
import { ReplayPanel } from "@/components/admission-tests/replay-panel";

type Tab = "yaml" | "form" | "diff";
const WEBHOOK_TABS: readonly Tab[] = ["yaml", "form", "diff"];
const POLICY_TABS: readonly Tab[] = ["yaml", "diff"];

/**
 * The stored version a 409 found; the merge onto it is made from the edit as it is now. `by` is
 * the button that met it: a dry run's conflict is merged and dry-run again, never written.
 */
interface Conflict {
  theirs: ConfigObject;
  theirsText: string;
  by: "apply" | "dry-run";
}

export interface WebhookEditorProps {
  context: string;
  resource: AdmissionResource;
  /** Set when editing a stored object; unset when creating. */
  name?: string;
  /** The text you started from (the stored object's YAML, or a template). */
  initialText: string;
  /** What the diff compares against when it differs from initialText (a proposed edit). */
  baseText?: string;
  /** A change proposed by a lint finding, opened (ok) or refused (with why). */
  proposal?: { ok: boolean; message: string };
  canWrite: boolean;
  /** After a create: the binding template to open next, for the policy just created. */
  bindingTemplate?: string;
  /** Who wrote each term of the stored object (editing only): an edit of an injected term is warned of. */
  provenance?: ConfigurationProvenance;
}

const VALIDATE_DEBOUNCE_MS = 150;

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * Edit (or create) one admission object — a webhook configuration, an admission policy or a
 * binding: YAML (+ a form for webhook configurations), markers, diff, dry run, apply, conflicts.
 */
export function WebhookEditor({
  context,
  resource,
  name,
  initialText,
  baseText,
  proposal,
  canWrite,
  bindingTemplate,
  provenance,
}: WebhookEditorProps) {
  const router = useRouter();
  const [base, setBase] = useState(baseText ?? initialText);
  const [text, setText] = useState(initialText);
  // A proposed edit opens on its diff, so the admin sees exactly what would change.
  const [tab, setTab] = useState<Tab>(proposal?.ok ? "diff" : "yaml");
  const [admission, setAdmission] = useState<MarkerData[]>([]);
  const [apiserver, setApiserver] = useState<MarkerData[]>([]);
  const [shown, setShown] = useState<ShownMarker[]>([]);
  const [dryRun, setDryRunResult] = useState<DryRun | undefined>(undefined);
  // The text a dry run was made of: its verdict says nothing of a text edited since.
  const [dryRunOf, setDryRunOf] = useState<string | undefined>(undefined);
  const setDryRun = (r: DryRun | undefined, ofText?: string) => {
    setDryRunResult(r);
    setDryRunOf(ofText);
  };
  const [conflict, setConflict] = useState<Conflict | undefined>(undefined);
  const [notice, setNotice] = useState("");
  const [reveal, setReveal] = useState<RevealRequest | undefined>(undefined);
  const schema = useQuery(kindSchemaQuery(context, resource));
  const kind = KIND_OF[resource];
  const creating = name === undefined;
  // An object a policy engine owns: its controller will put its own version back.
  const engineOwned = useMemo(() => {
    if (creating) return undefined;
    const r = readEditorYaml(base);
    return r.ok ? engineEditWarning(kind, r.value) : undefined;
  }, [base, kind, creating]);
  // Apply on an engine-owned object first asks (once per edit) to go ahead anyway.
  const [engineAsk, setEngineAsk] = useState<"no" | "asking" | "agreed">("no");
  const modelPath = `file:///portcullis/${name ?? "new"}/${resource}.yaml`;

  useEffect(() => {
    setYamlSchema(resource, schema.data as JSONSchema | undefined);
  }, [resource, schema.data]);

  // The validator from lib/admission, as you type: the same errors the cluster's apiserver would
  // return, as its minor words them (its /version, read for the top bar; the newest until then).
  const overview = useQuery({ ...overviewQuery(context), enabled: !!context });
  const assumed = editorMinor(overview.data?.version);
  const minor = assumed.minor;
  useEffect(() => {
    const t = setTimeout(() => {
      const res = validateDocument(text, editorValidationOptions({ kind, name, base, minor }));
      setAdmission(validatorMarkers(res.issues));
    }, VALIDATE_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text, base, kind, name, minor]);

  // An edit not applied yet (a proposal opened from lint counts as one) is not left unasked.
  useUnsavedGuard(
    text !== base,
    creating
      ? `Leave without creating ${kind}? What you wrote is not kept.`
      : `Leave ${name}? Your edit has not been applied and is not kept.`,
  );

  const markers: OwnedMarkers = useMemo(() => ({ admission, apiserver }), [admission, apiserver]);
  const parsed = useMemo(() => parseEditorYaml(text), [text]);
  // My changes (base → the text as it is now) onto theirs: the editor stays open beside the
  // conflict view, so what is typed after the 409 is part of them.
  const merging = useMemo(
    () => (conflict ? merge3(parseEditorYaml(base), parsed, conflict.theirs) : undefined),
    [conflict, base, parsed],
  );

  const edit = useCallback((next: string) => {
    setText(next);
    // Apiserver markers describe an earlier text; drop them once it changes.
    setApiserver([]);
    setNotice("");
  }, []);

  const showApiError = useCallback((e: unknown, forText: string) => {
    // Only an answer about the document goes on its lines; a cluster that did not answer is said
    // beside the result (the text is as good as it was).
    if (e instanceof ApiError && e.status !== 409 && isApiserverVerdict(e)) {
      const ms = apiErrorMarkers(forText, e);
      setApiserver(ms);
      setTab("yaml");
      const first = ms[0];
      setReveal(first ? { line: first.startLineNumber, focus: false } : undefined);
    }
  }, []);

  const submit = useMutation({
    mutationFn: async ({ dry, object }: { dry: boolean; object: ConfigObject }) =>
      writeConfiguration(resource, name, object, dry),
  });

  // The object to send, or why the text cannot be sent.
  const readObject = (t: string): { object: ConfigObject } | { error: string } => {
    const r = readEditorYaml(t);
    if (!r.ok) return { error: r.error };
    const v = r.value;
    return v && typeof v === "object" && !Array.isArray(v)
      ? { object: v as ConfigObject }
      : { error: "the document is not an object" };
  };

  // The stored version another admin wrote since this edit began: the three-way view opens on it,
  // whichever button met the 409. False when it could not be read (said in the notice).
  const meetConflict = async (by: Conflict["by"]): Promise<boolean> => {
    try {
      await openConflict(by);
      return true;
    } catch (readError) {
      // Say it: a rejection nobody shows would leave the button looking as if nothing happened.
      setNotice(
        `Your ${by === "apply" ? "apply" : "dry run"} was refused (409 Conflict): the object changed since you read it, and reading the stored version failed. Nothing was overwritten; reload the page to start from it.`,
      );
      setDryRun({ ok: false, error: asError(readError) });
      return false;
    }
  };

  const runDryRun = async (dryText: string = text) => {
    const read = readObject(dryText);
    if (!("object" in read)) {
      setDryRun({
        ok: false,
        error: new Error(`The YAML cannot be sent (${read.error}): nothing was sent.`),
      });
      return;
    }
    const { object } = read;
    try {
      const stored = await submit.mutateAsync({ dry: true, object });
      setApiserver([]);
      setDryRun(
        { ok: true, submitted: toEditorYaml(object), stored: toEditorYaml(stored) },
        dryText,
      );
    } catch (e) {
      // Another admin applied since this edit began: the same conflict view as Apply's 409.
      if (e instanceof ApiError && e.status === 409 && !creating) {
        setDryRun(undefined);
        await meetConflict("dry-run");
        return;
      }
      showApiError(e, dryText);
      setDryRun({ ok: false, error: asError(e) }, dryText);
    }
  };

  const openConflict = async (by: Conflict["by"]) => {
    const theirs = await callApi(readConfigurationRoute, {
      params: { resource, name: name ?? "" },
    });
    setConflict({ theirs, theirsText: toEditorYaml(theirs), by });
  };

  const apply = async (applyText: string, confirmed = false) => {
    if (engineOwned && engineAsk !== "agreed" && !confirmed) {
      setEngineAsk("asking");
      return;
    }
    const read = readObject(applyText);
    if (!("object" in read)) {
      setNotice(`The YAML cannot be sent (${read.error}): nothing was applied.`);
      return;
    }
    const { object } = read;
    try {
      const stored = await submit.mutateAsync({ dry: false, object });
      setDryRun(undefined);
      setConflict(undefined);
      setApiserver([]);
      if (creating) {
        const storedName = stored.metadata?.name ?? "";
        router.push(
          bindingTemplate
            ? `/policies/new?template=${encodeURIComponent(bindingTemplate)}&policy=${encodeURIComponent(storedName)}`
            : objectPagePath(resource, storedName),
        );
        return;
      }
      const storedText = toEditorYaml(stored);
      setBase(storedText);
      setText(storedText);
      setNotice(`Applied: stored at resourceVersion ${stored.metadata?.resourceVersion ?? "?"}.`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409 && !creating) {
        await meetConflict("apply");
        return;
      }
      showApiError(e, applyText);
      setNotice("");
      setDryRun({ ok: false, error: asError(e) });
    }
  };

  const reapply = async () => {
    if (!conflict || !merging) return;
    const mine = readObject(text);
    if (!("object" in mine)) {
      setNotice(`The YAML cannot be sent (${mine.error}): nothing was applied.`);
      return;
    }
    const r = merging;
    const mergedText = toEditorYaml(r.merged);
    setBase(conflict.theirsText);
    setText(mergedText);
    if (r.conflicts.length > 0) {
      setConflict(undefined);
      setNotice(
        `Merged onto resourceVersion ${conflict.theirs.metadata?.resourceVersion}; review the conflicting fields, then apply.`,
      );
      return;
    }
    if (conflict.by === "dry-run") {
      // The admin asked for a dry run: the merge is dry-run, and written only by Apply.
      setConflict(undefined);
      setNotice(
        `Merged onto resourceVersion ${conflict.theirs.metadata?.resourceVersion} and dry-run again; nothing was written. Apply writes it.`,
      );
      await runDryRun(mergedText);
      return;
    }
    await apply(mergedText);
  };

  const discard = () => {
    if (!conflict) return;
    setBase(conflict.theirsText);
    setText(conflict.theirsText);
    setConflict(undefined);
    setNotice("Loaded the stored version; your edit was discarded.");
  };

  const errors = shown.filter((m) => m.severity === "error").length;
  const detailHref = objectPagePath(resource, name);
  const hasForm = isWebhookResource(resource);
  const tabIds = hasForm ? WEBHOOK_TABS : POLICY_TABS;
  const tabs = useTabs(tabIds, tab, setTab);
  return (
    <div className="stack editor-page">
      <div className="page-head">
        <h1>
          {creating ? "New " : "Edit "}
          <span className="muted">{kind}</span> {name ? <span className="mono">{name}</span> : null}
        </h1>
        <span className="spacer" />
        <Link href={detailHref}>{creating ? "Cancel" : "Back to detail"}</Link>
      </div>
      {!canWrite ? (
        <p className="alert" role="alert" data-testid="read-only">
          Read-only: your identity may not {creating ? "create" : "update"} {kind}s, so apply and
          dry run are disabled.
        </p>
      ) : null}
      <div className="editor-tabs">
        <div className="tab-group" {...tabs.list} aria-label="Editor view">
          {tabIds.map((t) => (
            <button key={t} {...tabs.tab(t)}>
              {t === "yaml"
                ? "YAML"
                : t === "form"
                  ? "Form"
                  : creating
                    ? "Diff vs template"
                    : "Diff vs live"}
            </button>
          ))}
        </div>
        <span className="spacer" />
        <span className={errors > 0 ? "bad" : "muted"} data-testid="error-count">
          {errors} {errors === 1 ? "error" : "errors"}
        </span>
        <button type="button" onClick={() => runDryRun()} disabled={!canWrite || submit.isPending}>
          Dry run
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => apply(text)}
          disabled={!canWrite || submit.isPending || !!conflict}
        >
          {creating ? "Create" : "Apply"}
        </button>
      </div>
      {engineOwned ? (
        <EngineEditWarningPanel
          warning={engineOwned}
          asking={engineAsk === "asking"}
          onApplyAnyway={() => {
            setEngineAsk("agreed");
            void apply(text, true);
          }}
          onCancel={() => setEngineAsk("no")}
        />
      ) : null}
      {proposal ? (
        <p className={proposal.ok ? "callout" : "alert"} role="status" data-testid="proposal">
          {proposal.message}
        </p>
      ) : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {conflict ? (
        <ConflictView
          by={conflict.by}
          base={base}
          mine={text}
          theirs={conflict.theirsText}
          theirsVersion={conflict.theirs.metadata?.resourceVersion ?? ""}
          conflicts={merging?.conflicts ?? []}
          pending={submit.isPending}
          onReapply={reapply}
          onDiscard={discard}
        />
      ) : null}
      <ProvenanceWarning provenance={provenance} edited={parsed} />
      <div className="editor-body">
        <div className="editor-main">
          <div {...tabs.panel("yaml")} className="editor-pane">
            <YamlEditor
              path={modelPath}
              value={text}
              onChange={edit}
              markers={markers}
              onMarkers={setShown}
              readOnly={!canWrite}
              reveal={reveal}
            />
          </div>
          {hasForm ? (
            <div {...tabs.panel("form")}>
              {tab === "form" ? (
                <FormView
                  value={parsed}
                  mutating={resource === "mutatingwebhookconfigurations"}
                  nameEditable={creating}
                  readOnly={!canWrite}
                  onSet={(path, v) => edit(setYamlPath(text, path, v))}
                />
              ) : null}
            </div>
          ) : null}
          <div {...tabs.panel("diff")}>
            {tab === "diff" ? (
              <YamlDiff
                id="live"
                label="Diff against the live object"
                original={base}
                modified={text}
                height={520}
              />
            ) : null}
          </div>
        </div>
        <ProblemsList
          markers={shown}
          assumed={assumed}
          onJump={(l, c) => {
            setTab("yaml");
            setReveal({ line: l, column: c, focus: true });
          }}
        />
      </div>
      {schema.error ? <ErrorBox error={schema.error} /> : null}
      {dryRun ? (
        <DryRunResult result={dryRun} stale={dryRunOf !== undefined && dryRunOf !== text} />
      ) : null}
      <ReplayPanel
        context={context}
        resource={resource}
        name={name}
        text={text}
        readObject={readObject}
      />
    </div>
  );
}
