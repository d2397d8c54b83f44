/**
 * Other tools' admission tests as Portcullis suites, and what did not map:
 *
 * - kat (Kubernetes Admission Tester): a policy directory with policy and binding files and a
 *   `tests/` directory of files named `<policy>.<test>.<expect>.<type>.yaml` — expect allow,
 *   deny, warn or audit; type object, oldObject, request, params; `.message.txt`,
 *   `.warnings.txt`, `.annotations.yaml`, and `.gold.yaml` (or `.expected.yaml`) for the mutated
 *   object. The operation is CREATE for an object, UPDATE for object and oldObject, DELETE for an
 *   oldObject alone, unless the request file names it.
 * - kaptest: a test manifest naming ValidatingAdmissionPolicy files, resource files and
 *   `testSuites` of `{policy, tests: [{object, oldObject, param, userInfo, expect}]}` with expect
 *   admit (allow), deny, skip or error; objects are found by kind, name and namespace among the
 *   resources. kaptest evaluates a policy without a binding and never its matchConstraints: the
 *   import writes a binding per policy (validationActions Deny, params by selector), and the
 *   whole chain then runs as the apiserver would — a case the policy's rules do not match reports
 *   the binding skipped.
 *
 * Pure: files are read through the `read` callback (paths relative to the tool's root).
 */
import type { JsonObject } from "@/lib/admission/model/request";
import { parseDocuments } from "@/lib/admission/validate/source-map";
import type { TestCase, TestExpect, TestRequest } from "./format";

/** What an import produced. */
export interface ImportResult {
  readonly cases: TestCase[];
  /** Configuration files (paths relative to the tool's root) the cases run against. */
  readonly configuration: string[];
  /** Objects the suite carries itself (kaptest's missing bindings). */
  readonly configurationObjects: JsonObject[];
  /** Everything that did not map, one sentence each. */
  readonly unmapped: string[];
}

function objectsOf(text: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const d of parseDocuments(text)) {
    const v: unknown = d.value;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) out.push(v as JsonObject);
  }
  return out;
}

const meta = (o: JsonObject | undefined): JsonObject =>
  (o?.metadata as JsonObject | undefined) ?? {};
const str = (v: unknown): string => (typeof v === "string" ? v : "");

const KAT_TYPES = [
  "request.yaml",
  "object.yaml",
  "oldObject.yaml",
  "params.yaml",
  "annotations.yaml",
  "warnings.txt",
  "authorizer.yaml",
  "message.txt",
  "gold.yaml",
  "expected.yaml",
] as const;

/**
 * kat: `files` lists the policy directory's files (relative paths, `tests/…` included).
 */
export function importKat(files: readonly string[], read: (file: string) => string): ImportResult {
  const unmapped: string[] = [];
  const isPolicyFile = (f: string) =>
    !f.includes("/") &&
    (/^(policy|policies|binding|bindings)\.ya?ml$/.test(f) || /\.(policy|binding)\.ya?ml$/.test(f));
  const configuration = files.filter(isPolicyFile).sort();
  const objects = configuration.flatMap((f) => objectsOf(read(f)));
  const policies = objects.filter((o) => /AdmissionPolicy$/.test(str(o.kind)));
  const policyNames = policies.map((p) => str(meta(p).name));
  const bindings = objects.filter((o) => /AdmissionPolicyBinding$/.test(str(o.kind)));
  if (policies.length === 0) unmapped.push("no policy file (policy.yaml, *.policy.yaml) found");

  // Test files grouped by their base name (the file name without its type suffix).
  const groups = new Map<string, Map<string, string>>();
  for (const f of files.filter((x) => x.startsWith("tests/")).sort()) {
    const name = f.slice("tests/".length);
    const type = KAT_TYPES.find((t) => name.endsWith(`.${t}`));
    if (!type) {
      unmapped.push(`${f}: not a kat test file`);
      continue;
    }
    const base = name.slice(0, -(type.length + 1));
    const g = groups.get(base) ?? new Map<string, string>();
    g.set(type, f);
    groups.set(base, g);
  }

  const cases: TestCase[] = [];
  for (const [base, g] of groups) {
    const policyName =
      policyNames.find((p) => base.startsWith(`${p}.`)) ??
      (policyNames.length === 1 ? policyNames[0] : undefined);
    const policy = policies.find((p) => str(meta(p).name) === policyName);
    if (!policy) {
      unmapped.push(`tests/${base}: names no policy of the directory`);
      continue;
    }
    const mutating = str(policy.kind) === "MutatingAdmissionPolicy";
    const source = mutating ? "MutatingAdmissionPolicy" : "ValidatingAdmissionPolicy";
    const hook = `${source}/${policyName ?? ""}`;
    const expectWord = /\.(allow|deny|warn|audit)(\.|$)/.exec(base)?.[1];
    const one = (type: (typeof KAT_TYPES)[number]): JsonObject | undefined => {
      const f = g.get(type);
      return f === undefined ? undefined : objectsOf(read(f))[0];
    };
    const text = (type: (typeof KAT_TYPES)[number]): string | undefined => {
      const f = g.get(type);
      return f === undefined ? undefined : read(f).trim();
    };
    const req = one("request.yaml") ?? {};
    const object = one("object.yaml") ?? (req.object as JsonObject | undefined);
    const oldObject = one("oldObject.yaml") ?? (req.oldObject as JsonObject | undefined);
    const operation =
      str(req.operation) ||
      (object && oldObject ? "UPDATE" : object ? "CREATE" : oldObject ? "DELETE" : "CREATE");
    if (g.has("authorizer.yaml"))
      unmapped.push(
        `tests/${base}: authorizer mocks do not map (offline, a policy reading authorizer is undecided; --dry-run asks the cluster's authorizer)`,
      );
    const userInfo = req.userInfo as TestRequest["userInfo"] | undefined;
    const namespaceObject = req.namespaceObject as JsonObject | undefined;
    const params = one("params.yaml");
    const request: TestRequest = {
      operation: operation as TestRequest["operation"],
      ...(str(req.subResource) ? { subresource: str(req.subResource) } : {}),
      ...(str(req.name) ? { name: str(req.name) } : {}),
      ...(str(req.namespace) || str(meta(namespaceObject).name)
        ? { namespace: str(req.namespace) || str(meta(namespaceObject).name) }
        : {}),
      ...(object ? { object } : {}),
      ...(oldObject ? { oldObject } : {}),
      ...(userInfo ? { userInfo: { ...userInfo, username: userInfo.username ?? "" } } : {}),
      ...(req.options ? { options: req.options as JsonObject } : {}),
      ...(namespaceObject ? { namespaceObject } : {}),
      // kat: a policy with a paramKind and no params file finds none.
      ...(params
        ? { params: [params] }
        : policy.spec && (policy.spec as JsonObject).paramKind
          ? { params: [] }
          : {}),
    };
    const expect: Record<string, unknown> = {};
    const message = text("message.txt");
    const warnings = text("warnings.txt")
      ?.split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "");
    const annotations = one("annotations.yaml") as Record<string, string> | undefined;
    const gold = one("gold.yaml") ?? one("expected.yaml");
    if (mutating) {
      expect.admitted = expectWord !== "deny";
      if (gold) expect.mutatedObject = gold;
    } else if (expectWord === "deny") {
      expect.admitted = false;
      expect.policies = [{ hook, result: "denied", ...(message ? { message } : {}) }];
    } else if (expectWord === "warn" || expectWord === "audit") {
      expect.policies = [
        {
          hook,
          result: expectWord === "warn" ? "warned" : "audited",
          ...(warnings ? { warnings } : {}),
          ...(annotations ? { auditAnnotations: annotations } : {}),
        },
      ];
    } else {
      // kat's allow: the request is admitted, whether the binding matched or not.
      expect.admitted = true;
      if (annotations) expect.policies = [{ hook, auditAnnotations: annotations }];
    }
    if (warnings && expectWord !== "warn") expect.warnings = warnings;
    cases.push({
      name: base,
      source: { from: "kat", ref: `tests/${base}` },
      request,
      expect: expect as TestExpect,
    });
  }
  if (bindings.length === 0 && policies.length > 0)
    unmapped.push("no binding file: the policies are never called (kat needs one too)");
  return { cases, configuration, configurationObjects: [], unmapped };
}

interface KaptestRef {
  group?: string;
  version?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** kaptest: `manifest` is the test manifest's text; paths in it are read relative to it. */
export function importKaptest(manifest: string, read: (file: string) => string): ImportResult {
  const unmapped: string[] = [];
  const m = objectsOf(manifest)[0] ?? {};
  const policyFiles = (m.validatingAdmissionPolicies as string[] | undefined) ?? [];
  const resourceFiles = (m.resources as string[] | undefined) ?? [];
  const suites =
    (m.testSuites as
      Array<{ policy?: string; tests?: Array<Record<string, unknown>> }> | undefined) ?? [];
  const policies = policyFiles.flatMap((f) => objectsOf(read(f)));
  const resources = resourceFiles.flatMap((f) => objectsOf(read(f)));
  const find = (q: KaptestRef | undefined): JsonObject | undefined => {
    if (!q?.name || !q.kind) return undefined;
    return resources.find((r) => {
      const md = meta(r);
      const [g, v] = str(r.apiVersion).includes("/")
        ? str(r.apiVersion).split("/")
        : ["", str(r.apiVersion)];
      return (
        str(r.kind) === q.kind &&
        str(md.name) === q.name &&
        (q.namespace === undefined || q.namespace === str(md.namespace)) &&
        (q.group === undefined || q.group === g) &&
        (q.version === undefined || q.version === v)
      );
    });
  };
  const configurationObjects: JsonObject[] = [];
  const cases: TestCase[] = [];
  for (const s of suites) {
    const policy = policies.find((p) => str(meta(p).name) === s.policy);
    if (!policy) {
      unmapped.push(
        `testSuites ${s.policy ?? "?"}: no such ValidatingAdmissionPolicy in the policy files`,
      );
      continue;
    }
    const name = str(meta(policy).name);
    const spec = (policy.spec as JsonObject | undefined) ?? {};
    const paramKind = spec.paramKind as JsonObject | undefined;
    const binding = `${name}-binding`;
    configurationObjects.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: binding },
      spec: {
        policyName: name,
        validationActions: ["Deny"],
        ...(paramKind ? { paramRef: { selector: {}, parameterNotFoundAction: "Deny" } } : {}),
      },
    });
    const hook = `ValidatingAdmissionPolicy/${name}/${binding}`;
    // kaptest never evaluates matchConstraints: say where they keep the apiserver from calling it.
    const rules =
      ((spec.matchConstraints as JsonObject | undefined)?.resourceRules as
        Array<{ apiGroups?: string[] }> | undefined) ?? [];
    const groups = new Set(rules.flatMap((r) => r.apiGroups ?? []));
    const missed = new Set<string>();
    for (const t of s.tests ?? []) {
      const o =
        find(t.object as KaptestRef | undefined) ?? find(t.oldObject as KaptestRef | undefined);
      const apiVersion = str(o?.apiVersion);
      const group = apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
      if (o && !groups.has("*") && !groups.has(group))
        missed.add(`${str(o.kind)} (group "${group}")`);
    }
    if (missed.size > 0)
      unmapped.push(
        `policy ${name}: kaptest never evaluates matchConstraints; its resourceRules name API groups ${JSON.stringify([...groups])}, which do not hold ${[...missed].join(", ")}: the apiserver never calls it for these cases, and they report the binding skipped (rules)`,
      );
    const failureIgnored = str(spec.failurePolicy) === "Ignore";
    (s.tests ?? []).forEach((t, i) => {
      const caseName =
        `${name}: ${i + 1} ${str(t.expect)} ${(t.object as KaptestRef | undefined)?.name ?? (t.oldObject as KaptestRef | undefined)?.name ?? ""}`.trim();
      const object = find(t.object as KaptestRef | undefined);
      const oldObject = find(t.oldObject as KaptestRef | undefined);
      if (!object && !oldObject) {
        unmapped.push(`${caseName}: its object is not among the resources`);
        return;
      }
      const paramQ = (t.param ?? t.params) as KaptestRef | undefined;
      const param = paramQ
        ? resources.find(
            (r) =>
              str(meta(r).name) === paramQ.name &&
              (paramQ.namespace === undefined || str(meta(r).namespace) === paramQ.namespace) &&
              (!paramKind || str(r.kind) === str(paramKind.kind)),
          )
        : undefined;
      if (paramQ && !param)
        unmapped.push(`${caseName}: its param ${paramQ.name ?? ""} is not among the resources`);
      const ns = str(meta(object ?? oldObject).namespace);
      const namespaceObject = ns
        ? resources.find((r) => str(r.kind) === "Namespace" && str(meta(r).name) === ns)
        : undefined;
      const u = t.userInfo as
        { name?: string; groups?: string[]; extra?: Record<string, string[]> } | undefined;
      const expectWord = str(t.expect);
      const expect: TestExpect =
        expectWord === "deny"
          ? { admitted: false, policies: [{ hook, result: "denied" }] }
          : expectWord === "admit" || expectWord === "allow"
            ? { policies: [{ hook, result: "allowed" }] }
            : expectWord === "skip"
              ? { skipped: [{ hook, reason: "binding" }] }
              : expectWord === "error"
                ? failureIgnored
                  ? { policies: [{ hook, result: "allowed" }] }
                  : { policies: [{ hook, result: "denied", message: "resulted in error" }] }
                : {};
      if (expectWord === "skip")
        unmapped.push(
          `${caseName}: kaptest's skip (a matchCondition false) is checked as the binding skipped for any reason of its own`,
        );
      if (expectWord === "error")
        unmapped.push(
          `${caseName}: kaptest's error is checked as failurePolicy ${failureIgnored ? "Ignore (admitted)" : "Fail (denied, the message naming the error)"}`,
        );
      cases.push({
        name: caseName,
        source: { from: "kaptest", ref: `testSuites ${name} tests[${i}]` },
        request: {
          operation: object && oldObject ? "UPDATE" : object ? "CREATE" : "DELETE",
          ...(object ? { object } : {}),
          ...(oldObject ? { oldObject } : {}),
          ...(u?.name
            ? {
                userInfo: {
                  username: u.name,
                  groups: u.groups ?? [],
                  ...(u.extra ? { extra: u.extra } : {}),
                },
              }
            : {}),
          ...(namespaceObject ? { namespaceObject } : {}),
          ...(param ? { params: [param] } : paramKind ? { params: [] } : {}),
        },
        expect,
      });
    });
  }
  return { cases, configuration: policyFiles, configurationObjects, unmapped };
}
