/**
 * Argument parsing: argv → one typed command. Pure (no I/O), so every rule is unit-tested.
 * Flags follow kubectl's habits: `--flag value` or `--flag=value`, `-o json`, repeatable lists.
 */
import { parseArgs } from "node:util";
import type { AdmissionOperation } from "@/lib/k8s/types";
import { UsageError } from "./errors";
import type { RequestSpec } from "@/lib/admission/report/predict-report";
import {
  KUBERNETES_MINORS,
  parseKubernetesMinor,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";

/** `--output`. */
type OutputFormat = "text" | "json";

/** `--fail-on`: the lowest severity that makes `lint` exit 1. */
export type FailOn = "critical" | "high" | "medium";

/** Flags every command accepts. */
interface Common {
  output: OutputFormat;
  /** Read live state through this kubeconfig context. */
  context: string | undefined;
  /** Use this kubeconfig instead of KUBECONFIG / ~/.kube/config. */
  kubeconfig: string | undefined;
  /**
   * `--kubernetes-version 1.35|1.36|1.37` (or v1.36.3): the minor whose apiserver is reproduced.
   * Undefined: the cluster's own (--context), else the newest.
   */
  kubernetesVersion: KubernetesMinor | undefined;
}

/**
 * `--admission-manifests DIR` (repeatable; `Plugin=DIR` names the plugin): the apiserver's
 * static manifest directories, whose hooks and policies run first and are invisible to the API.
 */
interface Manifests {
  admissionManifests: string[];
}

/** `portcullis validate FILE|DIR|-...` */
export interface ValidateCommand extends Common {
  command: "validate";
  /** Files, directories, or `-` for stdin; empty only with --context (validate what is stored). */
  inputs: string[];
}

/** `portcullis lint FILE|DIR...` */
export interface LintCommand extends Common, Manifests {
  command: "lint";
  inputs: string[];
  /** Namespace objects (with labels) for the selector-dependent checks. */
  namespaces: string | undefined;
  failOn: FailOn;
}

/** `portcullis predict`: the request's parts (RequestSpec) come from flags. */
export interface PredictCommand extends Common, Manifests, RequestSpec {
  command: "predict";
  /** Configuration files or directories; empty only with --context. */
  config: string[];
  object: string;
  oldObject: string | undefined;
  namespaces: string | undefined;
  /** The apiserver's AdmissionConfiguration file (the PodSecurity plugin's defaults and exemptions). */
  admissionConfig: string | undefined;
}

/** `portcullis test FILE|DIR...`: admission test suites run against a configuration. */
export interface TestCommand extends Common, Manifests {
  command: "test";
  /** Test files or directories of them. */
  files: string[];
  /** Configuration files or directories; none: each suite's own, or the cluster's (--context). */
  config: string[];
  namespaces: string | undefined;
  admissionConfig: string | undefined;
  /** Also send each case as a server-side dry run (needs --context). */
  dryRun: boolean;
  /** Write JUnit XML here. */
  junit: string | undefined;
  /** Run only the cases whose name matches. */
  run: RegExp | undefined;
}

/** `portcullis test import --from kat|kaptest PATH`: another tool's tests as a suite. */
export interface TestImportCommand extends Common {
  command: "test-import";
  from: "kat" | "kaptest";
  /** kat: a policy directory (or its tests/); kaptest: its test manifest. */
  input: string;
  /** Where the suite is written; undefined: standard output. */
  out: string | undefined;
}

/** `portcullis help [COMMAND]`, `--help`. */
interface HelpCommand {
  command: "help";
  topic: "validate" | "lint" | "predict" | "test" | undefined;
}

/** `portcullis --version`. */
interface VersionCommand {
  command: "version";
}

/** Any parsed invocation. */
export type Command =
  | ValidateCommand
  | LintCommand
  | PredictCommand
  | TestCommand
  | TestImportCommand
  | HelpCommand
  | VersionCommand;

const OPERATIONS: readonly AdmissionOperation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];
const FAIL_ON: readonly FailOn[] = ["critical", "high", "medium"];
const COMMANDS = ["validate", "lint", "predict", "test"] as const;

const common = {
  output: { type: "string", short: "o" },
  context: { type: "string" },
  kubeconfig: { type: "string" },
  "kubernetes-version": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const options = {
  validate: { ...common },
  lint: {
    ...common,
    namespaces: { type: "string" },
    "fail-on": { type: "string" },
    "admission-manifests": { type: "string", multiple: true },
  },
  predict: {
    ...common,
    "admission-manifests": { type: "string", multiple: true },
    config: { type: "string", multiple: true },
    object: { type: "string" },
    operation: { type: "string" },
    "old-object": { type: "string" },
    subresource: { type: "string" },
    resource: { type: "string" },
    namespace: { type: "string", short: "n" },
    name: { type: "string" },
    "dry-run": { type: "boolean" },
    "namespace-labels": { type: "string", multiple: true },
    namespaces: { type: "string" },
    "admission-config": { type: "string" },
    user: { type: "string" },
    group: { type: "string", multiple: true },
  },
  test: {
    ...common,
    "admission-manifests": { type: "string", multiple: true },
    config: { type: "string", multiple: true },
    namespaces: { type: "string" },
    "admission-config": { type: "string" },
    "dry-run": { type: "boolean" },
    junit: { type: "string" },
    run: { type: "string" },
  },
  "test-import": {
    ...common,
    from: { type: "string" },
    out: { type: "string" },
  },
} as const;

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined)
    throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  return found;
}

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") throw new UsageError(`--${flag} needs a value`);
  return value;
}

/**
 * `k=v,k2=v2` (repeatable) → labels. Keys and values are checked only for shape here; selectors
 * compare them as strings, as the apiserver does.
 */
export function parseLabels(parts: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of parts) {
    for (const pair of part.split(",")) {
      if (pair.trim() === "") continue;
      const eq = pair.indexOf("=");
      const key = eq < 0 ? "" : pair.slice(0, eq).trim();
      if (key === "")
        throw new UsageError(`--namespace-labels: "${pair}" is not key=value (e.g. env=prod)`);
      out[key] = pair.slice(eq + 1).trim();
    }
  }
  return out;
}

function manifestDirs(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((v) => {
    if (v.trim() === "") throw new UsageError("--admission-manifests needs a directory");
    return v;
  });
}

function parseCommon(values: {
  output?: string;
  context?: string;
  kubeconfig?: string;
  "kubernetes-version"?: string;
}): Common {
  return {
    output: oneOf("output", values.output ?? "text", ["text", "json"] as const),
    context: nonEmpty("context", values.context),
    kubeconfig: nonEmpty("kubeconfig", values.kubeconfig),
    kubernetesVersion: kubernetesVersion(values["kubernetes-version"]),
  };
}

/** `--kubernetes-version`: one of the minors modelled, as 1.36, v1.36 or v1.36.3. */
function kubernetesVersion(v: string | undefined): KubernetesMinor | undefined {
  if (v === undefined) return undefined;
  const m = parseKubernetesMinor(v);
  if (!m)
    throw new UsageError(
      `--kubernetes-version must be one of ${KUBERNETES_MINORS.join(", ")} (got "${v}")`,
    );
  return m;
}

function parseFor<K extends keyof typeof options>(name: K, argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: options[name], allowPositionals: true });
  } catch (e) {
    // node:util's messages name the flag ("Unknown option '--x'"); keep them, minus its advice.
    const msg = e instanceof Error ? (e.message.split(". To specify")[0] ?? e.message) : String(e);
    throw new UsageError(msg);
  }
}

/** Parses `argv` (without node and the script). Throws UsageError on any mistake. */
export function parseCommandLine(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help")
    return { command: "help", topic: undefined };
  if (first === "--version" || first === "-v" || first === "version") return { command: "version" };
  if (first === "help") {
    const t = rest[0];
    const topic = COMMANDS.find((c) => c === t);
    if (t !== undefined && topic === undefined) throw new UsageError(`no command "${t}"`);
    return { command: "help", topic };
  }
  switch (first) {
    case "validate": {
      const { values, positionals } = parseFor("validate", rest);
      if (values.help) return { command: "help", topic: "validate" };
      const c = parseCommon(values);
      if (positionals.length === 0 && !c.context)
        throw new UsageError(
          "validate needs FILE, DIR or - (stdin), or --context to validate what is stored",
        );
      if (positionals.filter((p) => p === "-").length > 1)
        throw new UsageError("stdin (-) can be named only once");
      return { command: "validate", ...c, inputs: positionals };
    }
    case "lint": {
      const { values, positionals } = parseFor("lint", rest);
      if (values.help) return { command: "help", topic: "lint" };
      const c = parseCommon(values);
      const admissionManifests = manifestDirs(values["admission-manifests"]);
      if (positionals.length === 0 && !c.context && admissionManifests.length === 0)
        throw new UsageError(
          "lint needs FILE or DIR, or --context to lint the cluster's configuration",
        );
      return {
        command: "lint",
        ...c,
        admissionManifests,
        inputs: positionals,
        namespaces: nonEmpty("namespaces", values.namespaces),
        failOn: oneOf("fail-on", values["fail-on"] ?? "high", FAIL_ON),
      };
    }
    case "predict": {
      const { values, positionals } = parseFor("predict", rest);
      if (values.help) return { command: "help", topic: "predict" };
      const c = parseCommon(values);
      if (positionals.length > 0)
        throw new UsageError(
          `predict takes no positional arguments (got "${positionals[0]}"): use --config DIR --object FILE`,
        );
      const config = values.config ?? [];
      const admissionManifests = manifestDirs(values["admission-manifests"]);
      if (config.length === 0 && !c.context && admissionManifests.length === 0)
        throw new UsageError(
          "predict needs --config DIR (or --context NAME for the live configuration)",
        );
      const object = nonEmpty("object", values.object);
      if (object === undefined) throw new UsageError("predict needs --object FILE");
      if (values.operation === undefined)
        throw new UsageError(`predict needs --operation ${OPERATIONS.join("|")}`);
      const operation = oneOf("operation", values.operation.toUpperCase(), OPERATIONS);
      const oldObject = nonEmpty("old-object", values["old-object"]);
      if (oldObject !== undefined && operation !== "UPDATE")
        throw new UsageError(
          "--old-object is for UPDATE; for DELETE --object is the object being deleted",
        );
      const subresource = values.subresource ?? "";
      if (subresource.includes("/") || /\s/.test(subresource))
        throw new UsageError(
          `--subresource is one name such as scale, status or exec (got "${subresource}")`,
        );
      if (operation === "CONNECT" && subresource === "")
        throw new UsageError("CONNECT is always on a subresource: add --subresource (e.g. exec)");
      const groups = values.group ?? [];
      if (groups.length > 0 && values.user === undefined)
        throw new UsageError("--group needs --user");
      const labels = values["namespace-labels"];
      return {
        command: "predict",
        ...c,
        admissionManifests,
        config,
        object,
        operation,
        oldObject,
        subresource,
        resource: nonEmpty("resource", values.resource),
        namespace: nonEmpty("namespace", values.namespace),
        name: nonEmpty("name", values.name),
        dryRun: values["dry-run"] ?? false,
        namespaceLabels: labels === undefined ? undefined : parseLabels(labels),
        namespaces: nonEmpty("namespaces", values.namespaces),
        admissionConfig: nonEmpty("admission-config", values["admission-config"]),
        user: nonEmpty("user", values.user),
        groups,
      };
    }
    case "test": {
      if (rest[0] === "import") {
        const { values, positionals } = parseFor("test-import", rest.slice(1));
        if (values.help) return { command: "help", topic: "test" };
        const c = parseCommon(values);
        if (values.from === undefined) throw new UsageError("test import needs --from kat|kaptest");
        const from = oneOf("from", values.from, ["kat", "kaptest"] as const);
        const input = positionals[0];
        if (input === undefined || positionals.length > 1)
          throw new UsageError(
            "test import takes one PATH: a kat policy directory, or a kaptest test manifest",
          );
        return { command: "test-import", ...c, from, input, out: nonEmpty("out", values.out) };
      }
      const { values, positionals } = parseFor("test", rest);
      if (values.help) return { command: "help", topic: "test" };
      const c = parseCommon(values);
      if (positionals.length === 0) throw new UsageError("test needs FILE or DIR of test suites");
      const dryRun = values["dry-run"] ?? false;
      if (dryRun && !c.context)
        throw new UsageError("--dry-run sends each case to a cluster: add --context NAME");
      let run: RegExp | undefined;
      if (values.run !== undefined) {
        try {
          run = new RegExp(values.run);
        } catch (e) {
          throw new UsageError(`--run: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return {
        command: "test",
        ...c,
        admissionManifests: manifestDirs(values["admission-manifests"]),
        files: positionals,
        config: values.config ?? [],
        namespaces: nonEmpty("namespaces", values.namespaces),
        admissionConfig: nonEmpty("admission-config", values["admission-config"]),
        dryRun,
        junit: nonEmpty("junit", values.junit),
        run,
      };
    }
    default:
      throw new UsageError(`no command "${first}": use validate, lint, predict or test`);
  }
}
