/**
 * `portcullis test FILE|DIR...`: admission test suites (lib/admission/testing/format.ts) run
 * against configuration files (`--config`, else each suite's own `configuration`) or a
 * cluster's live state (`--context`), offline by lib/admission/testing/runner.ts; with
 * `--dry-run`, each case is also sent to the cluster as a server-side dry run as the caller's
 * identity, where every webhook it may reach declares sideEffects None or NoneOnDryRun.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { AdmissionRequest, RequestUserInfo } from "@/lib/admission/model/request";
import { readAdmissionConfig } from "@/server/kube/admission-config";
import { readStatusMessage } from "@/lib/admission/audit/status-message";
import { KubeApiError } from "@/lib/k8s/errors";
import {
  formatTestFileError,
  parseTestFile,
  type LocatedTestCase,
  type TestSuite,
} from "@/lib/admission/testing/format";
import {
  summarize,
  TestRunner,
  type CaseResult,
  type DryRunOutcome,
  type RunSummary,
} from "@/lib/admission/testing/runner";
import type { TestCommand } from "../args";
import { InputError } from "../errors";
import { readInputs } from "../input";
import type { Live } from "../live";
import { loadState, type State } from "../state";

/** One case's verdict as printed. */
export interface TestCaseReport extends Omit<CaseResult, "request"> {
  /** `file:line` of the case. */
  at: string;
  file: string;
  suite: string;
  /** Set with --dry-run: what the apiserver answered, or why no dry run was sent. */
  dryRun?: DryRunOutcome;
}

/** `portcullis test --output json`. */
export interface TestRunReport {
  schema: "portcullis.test/v1";
  ok: boolean;
  cases: TestCaseReport[];
  summary: RunSummary & { total: number; durationMs: number };
  /** With --dry-run: how many cases were sent, and those that were not, with why. */
  dryRun: { sent: number; skipped: Array<{ case: string; at: string; reason: string }> } | null;
  notices: string[];
}

function snapshotOf(state: State, admissionConfig: string | undefined): AdmissionSnapshot {
  let podSecurity;
  if (admissionConfig !== undefined) {
    try {
      podSecurity = readAdmissionConfig(admissionConfig).podSecurity;
    } catch (e) {
      throw new InputError(`--admission-config: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return {
    ...state.collected.lists,
    namespaces: state.namespaces,
    ...(state.terminatingNamespaces.length > 0
      ? { terminatingNamespaces: state.terminatingNamespaces }
      : {}),
    discovery: state.discovery,
    ...(state.params ? { params: state.params } : {}),
    ...(state.unservedParamKinds ? { unservedParamKinds: state.unservedParamKinds } : {}),
    ...(podSecurity ? { podSecurity } : {}),
    ...(state.manifestOrigins ? { manifestOrigins: state.manifestOrigins } : {}),
    // --kubernetes-version, else the cluster's /version, else the newest: matchConditions and
    // the policies' CEL are evaluated as that minor's cel-go.
    kubernetes: state.kubernetes,
  };
}

const SUITE_KIND = /^kind:\s*["']?AdmissionTestSuite["']?\s*$/m;

interface LoadedFile {
  file: string;
  suites: readonly TestSuite[];
  cases: readonly LocatedTestCase[];
}

/**
 * Reads the test files: a file named is a suite; a directory gives the suites found in it
 * (files whose text declares `kind: AdmissionTestSuite`), beside configuration or anything else.
 */
async function readSuites(files: readonly string[]): Promise<LoadedFile[]> {
  const sources = [];
  for (const f of files) {
    const read = await readInputs([f]);
    const isDir = f !== "-" && statSync(f, { throwIfNoEntry: false })?.isDirectory() === true;
    sources.push(...(isDir ? read.filter((s) => SUITE_KIND.test(s.text)) : read));
  }
  const out: LoadedFile[] = [];
  const problems: string[] = [];
  for (const s of sources) {
    const parsed = parseTestFile(s.text);
    if (!parsed.ok) problems.push(...parsed.errors.map((e) => formatTestFileError(s.name, e)));
    else out.push({ file: s.name, suites: parsed.suites, cases: parsed.cases });
  }
  if (problems.length > 0) throw new InputError(problems.join("\n"));
  return out;
}

/**
 * The webhooks a case's request may reach whose sideEffects forbid a dry run: the apiserver
 * refuses a dry run that reaches one (v1 allows only None and NoneOnDryRun; Some and Unknown stay
 * on static manifests' and v1beta1 hooks).
 */
export function dryRunBlockers(snapshot: AdmissionSnapshot, reached: readonly string[]): string[] {
  const out: string[] = [];
  for (const ref of reached) {
    const [source, configuration, name] = ref.split("/");
    const list =
      source === "MutatingWebhookConfiguration"
        ? snapshot.mutatingWebhookConfigurations
        : source === "ValidatingWebhookConfiguration"
          ? snapshot.validatingWebhookConfigurations
          : undefined;
    if (!list) continue;
    const hook = list
      .find((c) => c.metadata?.name === configuration)
      ?.webhooks?.find((w) => w.name === name);
    const se = hook?.sideEffects ?? "Unknown";
    if (se !== "None" && se !== "NoneOnDryRun") out.push(`${ref} declares sideEffects ${se}`);
  }
  return out;
}

function samePerson(a: RequestUserInfo, b: RequestUserInfo): boolean {
  return a.username === b.username;
}

/** Sends the request as a server-side dry run as the context's identity. */
async function sendDryRun(live: Live, r: AdmissionRequest): Promise<DryRunOutcome> {
  if (r.operation === "CONNECT")
    return { kind: "skipped", reason: "CONNECT has no dry run (it would run for real)" };
  if (r.operation !== "CREATE" && (r.name ?? "") === "")
    return { kind: "skipped", reason: `${r.operation} needs the object's name` };
  const root = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns =
    r.namespace && r.resource !== "namespaces"
      ? `/namespaces/${encodeURIComponent(r.namespace)}`
      : "";
  const base = `${root}${ns}/${r.resource}`;
  const named = `${base}/${encodeURIComponent(r.name ?? "")}${r.subresource ? `/${r.subresource}` : ""}`;
  const query = { dryRun: "All", fieldValidation: "Strict" };
  try {
    const { warnings } = await live.client.requestWithWarnings({
      method: r.operation === "CREATE" ? "POST" : r.operation === "UPDATE" ? "PUT" : "DELETE",
      path: r.operation === "CREATE" && !r.subresource ? base : named,
      query: r.operation === "DELETE" ? { dryRun: "All" } : query,
      body:
        r.operation === "DELETE"
          ? { apiVersion: "v1", kind: "DeleteOptions", dryRun: ["All"] }
          : (r.object ?? {}),
    });
    return { kind: "answered", allowed: true, status: 200, message: "", warnings };
  } catch (e) {
    if (!(e instanceof KubeApiError)) throw e;
    // A create refused by the store because the name is taken passed admission first.
    if (r.operation === "CREATE" && e.status === 409 && e.reason === "AlreadyExists")
      return { kind: "answered", allowed: true, status: 409, message: e.message, warnings: [] };
    if (e.status === 403 || readStatusMessage(e.message) !== undefined)
      return {
        kind: "answered",
        allowed: false,
        status: e.status,
        message: e.message,
        warnings: [],
      };
    return {
      kind: "skipped",
      reason: `the apiserver refused the request outside admission (${e.status} ${e.reason}): ${e.message}`,
    };
  }
}

/** Runs the command. */
export async function runTest(cmd: TestCommand): Promise<TestRunReport> {
  const started = performance.now();
  const files = await readSuites(cmd.files);
  const notices: string[] = [];
  const shared =
    cmd.config.length > 0 || cmd.context !== undefined || cmd.admissionManifests.length > 0
      ? await loadState({
          inputs: cmd.config,
          namespacesFile: cmd.namespaces,
          context: cmd.context,
          kubeconfig: cmd.kubeconfig,
          admissionManifests: cmd.admissionManifests,
          kubernetesVersion: cmd.kubernetesVersion,
        })
      : undefined;
  if (shared) notices.push(...shared.collected.notices.map((n) => `${n.at}: ${n.message}`));
  const ownStates = new Map<string, State>();
  const cases: TestCaseReport[] = [];
  const dry = cmd.dryRun
    ? { sent: 0, skipped: [] as Array<{ case: string; at: string; reason: string }> }
    : null;
  if (cmd.dryRun && cmd.config.length > 0)
    notices.push("--dry-run: the cluster answers with its own configuration, not --config's");

  for (const f of files) {
    for (const [suiteIndex, suite] of f.suites.entries()) {
      let state = shared;
      if (!state) {
        const own = (suite.configuration ?? []).map((p) => path.resolve(path.dirname(f.file), p));
        const objects = suite.configurationObjects ?? [];
        if (own.length === 0 && objects.length === 0)
          throw new InputError(
            `${f.file}: no configuration to test against: give --config DIR or --context NAME, or name it in the suite's configuration`,
          );
        const key = JSON.stringify([own, f.file, suiteIndex]);
        state = ownStates.get(key);
        if (!state) {
          state = await loadState({
            inputs: own,
            extraSources:
              objects.length > 0
                ? [
                    {
                      name: `${f.file} configurationObjects`,
                      text: objects.map((o) => JSON.stringify(o)).join("\n---\n"),
                    },
                  ]
                : [],
            namespacesFile: cmd.namespaces,
            context: undefined,
            kubeconfig: undefined,
            kubernetesVersion: cmd.kubernetesVersion,
          });
          ownStates.set(key, state);
          notices.push(...state.collected.notices.map((n) => `${n.at}: ${n.message}`));
        }
      }
      const snapshot = snapshotOf(state, cmd.admissionConfig);
      const runner = new TestRunner({
        snapshot,
        namespacesFrom: state.live ? "cluster" : state.namespacesKnown ? "files" : undefined,
        ...(state.identity ? { identity: state.identity } : {}),
      });
      for (const located of f.cases.filter((c) => c.suite === suiteIndex)) {
        if (cmd.run && !cmd.run.test(located.case.name)) continue;
        const at = `${f.file}:${located.line}`;
        let result = runner.run(located, suite);
        let outcome: DryRunOutcome | undefined;
        if (dry && state.live && result.status !== "error" && result.request) {
          const c = located.case;
          const blockers = dryRunBlockers(snapshot, result.reachedWebhooks);
          const reason =
            blockers.length > 0
              ? `${blockers.join("; ")} (only None and NoneOnDryRun allow a dry run)`
              : c.request.userInfo &&
                  state.identity &&
                  !samePerson(state.identity, result.request.userInfo)
                ? `the case acts as ${c.request.userInfo.username}; a dry run is sent as ${state.identity.username}`
                : c.request.params
                  ? "the case brings its own param objects; the cluster has its own"
                  : c.request.namespaceLabels || c.request.namespaceObject
                    ? "the case gives its namespace's labels; the cluster has its own"
                    : undefined;
          outcome =
            reason === undefined
              ? await sendDryRun(state.live, result.request)
              : { kind: "skipped", reason };
          if (outcome.kind === "skipped")
            dry.skipped.push({ case: c.name, at, reason: outcome.reason });
          else dry.sent++;
          result = runner.run(located, suite, outcome);
        }
        const { request: _request, ...rest } = result;
        cases.push({
          ...rest,
          at,
          file: f.file,
          suite: suite.metadata?.name ?? path.basename(f.file),
          ...(outcome ? { dryRun: outcome } : {}),
        });
      }
    }
  }
  const summary = summarize(cases);
  return {
    schema: "portcullis.test/v1",
    ok: summary.failed === 0 && summary.errors === 0,
    cases,
    summary: { ...summary, total: cases.length, durationMs: performance.now() - started },
    dryRun: dry,
    notices,
  };
}
