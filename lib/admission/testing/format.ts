/**
 * The admission test file: a versioned YAML format for cases of the whole admission chain
 * (`apiVersion: portcullis.dev/v1alpha1`, `kind: AdmissionTestSuite`), documented in
 * docs/admission-tests.md. A case is one admission request and what is expected of it: which
 * hooks and policies are called or skipped (and why, in the predictor's reason codes), in which
 * order, what the admission policies evaluated offline decide (allowed, denied with a message,
 * warned, audited) and the object the MutatingAdmissionPolicies leave. Expectations that cannot be
 * decided offline — a webhook's own answer, the apiserver's final response when a webhook is
 * called — are written under `expect.dryRun` and checked only by a server-side dry run. An
 * expectation left unset is not checked.
 *
 * This module is the format alone: the schema (zod), its types, `parseTestFile` (text → cases,
 * or errors with their line and field) and `serializeTestFile` (cases → text). The runner
 * (runner.ts) checks cases; the command line and the dashboard read and write files with these.
 */
import { z } from "zod";
import { stringify } from "yaml";
import type { SkipReason } from "@/lib/admission/matching/compiled";
import { parseDocuments } from "@/lib/admission/validate/source-map";

/** The format's version: bumped (v1beta1, v1) only with a conversion from the one before. @public */
export const ADMISSION_TEST_API_VERSION = "portcullis.dev/v1alpha1";
/** The kind of a test file's documents. @public */
export const ADMISSION_TEST_KIND = "AdmissionTestSuite";

/**
 * Why a hook is not called: the predictor's skip codes (matching/compiled.ts SkipReason), the
 * same words `portcullis predict --output json` prints in `skips[].code`. A binding skipped
 * for its own match (`binding`) is also matched by its inner code (e.g. `namespace-selector`).
 * @public
 */
export const SKIP_REASON_CODES = [
  "excluded",
  "rules",
  "exclude-rule",
  "namespace-selector",
  "object-selector",
  "match-condition-false",
  "match-condition-error-ignored",
  "configuration-error-ignored",
  "binding",
  "policy-missing",
  "params-not-found",
  "not-reached",
  "match-failed",
] as const satisfies readonly SkipReason["code"][];

/** A skip code (kept equal to the predictor's: a new code fails to compile until listed). @public */
export type SkipReasonCode = (typeof SKIP_REASON_CODES)[number];
type MissingSkipCodes = Exclude<SkipReason["code"], SkipReasonCode>;
const everySkipCodeListed: MissingSkipCodes extends never ? true : MissingSkipCodes = true;
void everySkipCodeListed;

/**
 * What an admission policy binding's evaluation decides, from its validations' failures and the
 * binding's validationActions: `denied` when a Deny action applies, else `warned` when a Warn
 * action does, else `audited` when only Audit does; `allowed` when no validation fails.
 * @public
 */
export const POLICY_RESULTS = ["allowed", "denied", "warned", "audited"] as const;
export type PolicyResult = (typeof POLICY_RESULTS)[number];

/** The sources a hook reference may name. @public */
export const HOOK_SOURCES = [
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
  "InitializerConfiguration",
] as const;
/** @public */
export type HookSource = (typeof HOOK_SOURCES)[number];

/**
 * A hook named in a test: `<Source>/<configuration>/<name>` — a webhook in its configuration
 * (`ValidatingWebhookConfiguration/gatekeeper/validation.gatekeeper.sh`), a policy's binding
 * (`ValidatingAdmissionPolicy/require-team/require-team-binding`) or an initializer. The name may
 * be left off (`ValidatingAdmissionPolicy/require-team`): then any hook of that configuration or
 * policy matches. Configuration, webhook and binding names hold no `/`.
 */
export interface HookRef {
  readonly source: HookSource;
  readonly configuration: string;
  /** The webhook, binding or initializer name; undefined: any of the configuration's. */
  readonly name: string | undefined;
}

const HOOK_REF = /^([A-Za-z]+)\/([^/\s]+)(?:\/([^/\s]+))?$/;

/** Reads `<Source>/<configuration>[/<name>]`; undefined when the text is not one. */
export function parseHookRef(text: string): HookRef | undefined {
  const m = HOOK_REF.exec(text.trim());
  if (!m) return undefined;
  const source = HOOK_SOURCES.find((s) => s === m[1]);
  if (!source || m[2] === undefined) return undefined;
  return { source, configuration: m[2], name: m[3] };
}

/** The reference's text: `<Source>/<configuration>[/<name>]`. */
export function formatHookRef(ref: HookRef): string {
  return `${ref.source}/${ref.configuration}${ref.name === undefined ? "" : `/${ref.name}`}`;
}

/** A hook reference as written in a file (checked by `parseHookRef`). @public */
export const hookRefSchema = z.string().refine((s) => parseHookRef(s) !== undefined, {
  message: `a hook is written <Source>/<configuration>[/<name>], Source one of ${HOOK_SOURCES.join(", ")}`,
});

const jsonObjectSchema = z.record(z.string(), z.unknown());
const labelsSchema = z.record(z.string(), z.string());

/** The request's user (authentication.k8s.io/v1 UserInfo). @public */
export const userInfoSchema = z.strictObject({
  username: z.string(),
  uid: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});

/**
 * The admission request of a case, by its parts (as `portcullis predict` takes them). The
 * resource is inferred from the object's apiVersion and kind unless given (`pods`,
 * `deployments.apps`, or `apps/v1/deployments`); the namespace from `metadata.namespace` unless
 * given. UPDATE takes `oldObject` (the stored object); DELETE takes the object being deleted as
 * `oldObject` (or `object`, read as the same); CONNECT takes its options body as `object`.
 * @public
 */
export const testRequestSchema = z.strictObject({
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  /** `RESOURCE[.GROUP]` or `GROUP/VERSION/RESOURCE` (the core group: `core/v1/pods`). */
  resource: z.string().min(1).optional(),
  subresource: z.string().optional(),
  /** The request's kind when the object does not carry it (a subresource, a DELETE by name). */
  kind: z.strictObject({ group: z.string(), version: z.string(), kind: z.string() }).optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  object: jsonObjectSchema.nullable().optional(),
  oldObject: jsonObjectSchema.nullable().optional(),
  /** Unset: the identity the runner is given (the caller's, or a cluster admin offline). */
  userInfo: userInfoSchema.optional(),
  dryRun: z.boolean().optional(),
  /** CreateOptions / UpdateOptions / DeleteOptions, when they matter to a condition. */
  options: jsonObjectSchema.nullable().optional(),
  /** Labels of the request's namespace (`kubernetes.io/metadata.name` is added). */
  namespaceLabels: labelsSchema.optional(),
  /** The request's namespace as an object (its labels are used; overrides namespaceLabels). */
  namespaceObject: jsonObjectSchema.optional(),
  /**
   * Param objects a policy's paramRef reads (ConfigMaps, custom resources). When set they are
   * all the param objects there are, of every paramKind the policies name (`[]`: none exist);
   * unset, they are the configuration's (unknown offline, the cluster's with --context).
   */
  params: z.array(jsonObjectSchema).optional(),
});

/** A hook expected to be skipped, and optionally why. @public */
export const skipExpectationSchema = z.strictObject({
  hook: hookRefSchema,
  /** The predictor's reason code (SKIP_REASON_CODES). */
  reason: z.enum(SKIP_REASON_CODES).optional(),
  /** Text the skip's explanation contains. */
  message: z.string().optional(),
});

/** What one admission policy binding, evaluated offline, is expected to decide. @public */
export const policyExpectationSchema = z.strictObject({
  hook: hookRefSchema,
  result: z.enum(POLICY_RESULTS).optional(),
  /** Text the denial (or, for warned, a warning) contains. */
  message: z.string().optional(),
  /** Texts each found in one of the binding's warnings. */
  warnings: z.array(z.string()).optional(),
  /** Audit annotations the binding writes (keys without the policy prefix), values exact. */
  auditAnnotations: z.record(z.string(), z.string()).optional(),
});

/** A webhook's own answer: decided only by calling it (a server-side dry run). @public */
export const webhookExpectationSchema = z.strictObject({
  hook: hookRefSchema,
  allowed: z.boolean().optional(),
  /** Text the webhook's denial contains. */
  message: z.string().optional(),
});

/** The apiserver's answer to the request, checked by dry run only. @public */
export const dryRunExpectationSchema = z.strictObject({
  allowed: z.boolean().optional(),
  /** The HTTP status of a refusal (403 for a denial). */
  status: z.number().int().optional(),
  /** Text the refusal's message contains. */
  message: z.string().optional(),
  /** Texts each found in one of the response's warnings. */
  warnings: z.array(z.string()).optional(),
  /** The webhooks' answers (each must have been called). */
  webhooks: z.array(webhookExpectationSchema).optional(),
});

/**
 * What a case expects. Each field is checked only when set. `calls` is the whole certain
 * sequence (round 0, in the apiserver's order: mutating policies, mutating webhooks, validating
 * policies, then validating webhooks); `called` only asks that each be called, in any order;
 * `notCalled` that none be (skipped, or not configured at all).
 * @public
 */
export const testExpectSchema = z.strictObject({
  /**
   * Whether admission lets the request through: decided offline when no webhook's answer is
   * needed (a policy or PodSecurity refuses it, or no webhook is called); else by dry run.
   */
  admitted: z.boolean().optional(),
  /** Exactly these hooks are called for certain, in this order. */
  calls: z.array(hookRefSchema).optional(),
  /** Each of these is called (in any order; others may be too). */
  called: z.array(hookRefSchema).optional(),
  /** Each of these is called, in this order relative to one another (others may be between). */
  order: z.array(hookRefSchema).optional(),
  /** None of these is called. */
  notCalled: z.array(hookRefSchema).optional(),
  /** Each of these is skipped, for the reason given. */
  skipped: z.array(skipExpectationSchema).optional(),
  /** Each of these may or may not be called: offline cannot decide (e.g. a CEL library it lacks). */
  undecided: z.array(hookRefSchema).optional(),
  /** The admission policies' offline verdicts. */
  policies: z.array(policyExpectationSchema).optional(),
  /** Texts each found in one of the warnings the policies (and PodSecurity) give offline. */
  warnings: z.array(z.string()).optional(),
  /** The object after the MutatingAdmissionPolicies (compared whole, as JSON). */
  mutatedObject: jsonObjectSchema.optional(),
  /** Checked only with a server-side dry run: the apiserver's and the webhooks' answers. */
  dryRun: dryRunExpectationSchema.optional(),
});

/** Where a case came from (kept for the reader; the runner ignores it). @public */
export const caseSourceSchema = z.strictObject({
  /** `decision` (the decision feed), `predict`, `kat`, `kaptest`, `oracle`, `manual`, … */
  from: z.string(),
  /** The audit event's ID, a file, a URL… */
  ref: z.string().optional(),
  /** When it was recorded (RFC 3339). */
  at: z.string().optional(),
  /** The configuration it was saved against (a context name, a file). */
  configuration: z.string().optional(),
});

/** One case. @public */
export const testCaseSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  source: caseSourceSchema.optional(),
  request: testRequestSchema,
  expect: testExpectSchema,
});

/** A test file's document. @public */
export const testSuiteSchema = z.strictObject({
  apiVersion: z.literal(ADMISSION_TEST_API_VERSION),
  kind: z.literal(ADMISSION_TEST_KIND),
  metadata: z
    .strictObject({
      name: z.string().optional(),
      description: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /**
   * Labels of namespaces the cases' requests name (a case's own namespaceLabels win), used when
   * the configuration does not hold the namespace.
   */
  namespaces: z.record(z.string(), labelsSchema).optional(),
  /**
   * Configuration files or directories (paths relative to the test file) the cases run against
   * when the command line names none: the hooks, policies, bindings and namespaces.
   */
  configuration: z.array(z.string()).optional(),
  /**
   * Configuration objects written in the suite itself (hooks, policies, bindings, Namespaces),
   * added to `configuration`'s: a suite saved from traffic keeps the hooks as they were; an
   * imported one the bindings its tool did not need.
   */
  configurationObjects: z.array(jsonObjectSchema).optional(),
  cases: z.array(testCaseSchema),
});

/** @public */
export type TestUserInfo = z.infer<typeof userInfoSchema>;
export type TestRequest = z.infer<typeof testRequestSchema>;
/** @public */
export type SkipExpectation = z.infer<typeof skipExpectationSchema>;
/** @public */
export type PolicyExpectation = z.infer<typeof policyExpectationSchema>;
/** @public */
export type WebhookExpectation = z.infer<typeof webhookExpectationSchema>;
/** @public */
export type DryRunExpectation = z.infer<typeof dryRunExpectationSchema>;
export type TestExpect = z.infer<typeof testExpectSchema>;
/** @public */
export type CaseSource = z.infer<typeof caseSourceSchema>;
export type TestCase = z.infer<typeof testCaseSchema>;
export type TestSuite = z.infer<typeof testSuiteSchema>;
/** A suite's metadata. */
export type TestSuiteMetadata = NonNullable<TestSuite["metadata"]>;

/** One problem in a test file: where it is and what is wrong. */
export interface TestFileError {
  /** 1-based line and column of the offending token (the nearest one that exists). */
  line: number;
  column: number;
  /** The field's path, e.g. `cases[2].request.operation` (`` for the document itself). */
  field: string;
  message: string;
  /** 0-based index of the YAML document in the file. */
  document: number;
}

/** A case with where it sits in its file. */
export interface LocatedTestCase {
  readonly case: TestCase;
  /** The suite it belongs to (its index in `suites`). */
  readonly suite: number;
  /** 1-based line of the case's first key. */
  readonly line: number;
}

/** What parseTestFile returns: the suites and their cases, or every error found. */
export type ParsedTestFile =
  | {
      readonly ok: true;
      readonly suites: readonly TestSuite[];
      /** Every suite's cases, in file order. */
      readonly cases: readonly LocatedTestCase[];
    }
  | { readonly ok: false; readonly errors: readonly TestFileError[] };

/** `cases[2].request.operation` from zod's path. */
function fieldOf(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out;
}

/**
 * Reads a test file: one or more YAML documents (`---`), each an AdmissionTestSuite. Objects are
 * read as the apiserver reads YAML (sigs.k8s.io/yaml's scalars). Every problem is reported with
 * its line, column and field — a YAML error, a wrong apiVersion or kind, an unknown or misspelt
 * field, a value of the wrong type, two cases of one name — and then no case is returned.
 */
export function parseTestFile(yamlText: string): ParsedTestFile {
  const errors: TestFileError[] = [];
  const suites: TestSuite[] = [];
  const cases: LocatedTestCase[] = [];
  const names = new Map<string, string>();
  const docs = parseDocuments(yamlText).filter((d) => d.value !== null || d.problems.length > 0);
  if (docs.length === 0)
    return {
      ok: false,
      errors: [
        {
          line: 1,
          column: 1,
          field: "",
          message: `no ${ADMISSION_TEST_KIND} in the file`,
          document: 0,
        },
      ],
    };
  for (const doc of docs) {
    if (doc.problems.length > 0) {
      for (const p of doc.problems)
        errors.push({
          line: p.range.startLine,
          column: p.range.startCol,
          field: "",
          message: p.message,
          document: doc.index,
        });
      continue;
    }
    const at = (segs: readonly (string | number)[]) => doc.rangeOf(segs);
    for (const d of doc.duplicates) {
      errors.push({
        line: d.range.startLine,
        column: d.range.startCol,
        field: fieldOf(d.segments),
        message: "the key is set twice",
        document: doc.index,
      });
    }
    const v = doc.value;
    const head =
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : undefined;
    if (head && head.apiVersion !== ADMISSION_TEST_API_VERSION) {
      const r = at(["apiVersion"]);
      errors.push({
        line: r.startLine,
        column: r.startCol,
        field: "apiVersion",
        message:
          head.apiVersion === undefined
            ? `apiVersion is missing: this format is ${ADMISSION_TEST_API_VERSION}`
            : `apiVersion ${JSON.stringify(head.apiVersion)} is not ${ADMISSION_TEST_API_VERSION}`,
        document: doc.index,
      });
      continue;
    }
    const parsed = testSuiteSchema.safeParse(v);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const segs = issue.path.filter(
          (p): p is string | number => typeof p === "string" || typeof p === "number",
        );
        // An unknown key: point at the key itself.
        const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
        const first = keys[0];
        const r = first !== undefined ? doc.rangeOf([...segs, first], "key") : at(segs);
        errors.push({
          line: r.startLine,
          column: r.startCol,
          field: fieldOf(first !== undefined ? [...segs, first] : segs),
          message:
            keys.length > 0
              ? `unknown field${keys.length > 1 ? "s" : ""} ${keys.map((k) => JSON.stringify(k)).join(", ")}`
              : issue.message,
          document: doc.index,
        });
      }
      continue;
    }
    const suiteIndex = suites.length;
    suites.push(parsed.data);
    parsed.data.cases.forEach((c, i) => {
      const r = at(["cases", i]);
      const before = names.get(c.name);
      if (before !== undefined) {
        const n = at(["cases", i, "name"]);
        errors.push({
          line: n.startLine,
          column: n.startCol,
          field: `cases[${i}].name`,
          message: `a case named ${JSON.stringify(c.name)} is already at ${before}`,
          document: doc.index,
        });
      } else names.set(c.name, `line ${r.startLine}`);
      cases.push({ case: c, suite: suiteIndex, line: r.startLine });
    });
  }
  errors.sort((a, b) => a.line - b.line || a.column - b.column);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, suites, cases };
}

/** `file:line:column: field: message`, the way compilers print it. */
export function formatTestFileError(file: string, e: TestFileError): string {
  return `${file}:${e.line}:${e.column}: ${e.field === "" ? "" : `${e.field}: `}${e.message}`;
}

/** Drops undefined fields (YAML would print them as null) and keeps key order. */
function defined<T>(value: T): T {
  if (Array.isArray(value)) return value.map(defined) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = defined(v);
    return out as T;
  }
  return value;
}

/**
 * Writes cases as one AdmissionTestSuite document (what parseTestFile reads back to the same
 * cases). `metadata` names the suite; `namespaces` gives the suite's namespace labels.
 */
export function serializeTestFile(
  cases: readonly TestCase[],
  options: {
    metadata?: TestSuiteMetadata;
    namespaces?: Readonly<Record<string, Readonly<Record<string, string>>>>;
    configuration?: readonly string[];
    configurationObjects?: readonly Readonly<Record<string, unknown>>[];
  } = {},
): string {
  const suite = {
    apiVersion: ADMISSION_TEST_API_VERSION,
    kind: ADMISSION_TEST_KIND,
    ...(options.metadata ? { metadata: options.metadata } : {}),
    ...(options.namespaces ? { namespaces: options.namespaces } : {}),
    ...(options.configuration ? { configuration: options.configuration } : {}),
    ...(options.configurationObjects ? { configurationObjects: options.configurationObjects } : {}),
    cases,
  };
  // Strings that YAML 1.1 would read as another type (yes, on, 0755) are quoted by `yaml`'s
  // default; lineWidth 0 keeps long messages on one line.
  return stringify(defined(suite), { lineWidth: 0, aliasDuplicateObjects: false, version: "1.1" });
}
