/**
 * A systematic corpus of admissionregistration objects for the validation oracle: valid objects and
 * objects broken in exactly one field, generated from the upstream rules (validation.go v1.37.2).
 * No case carries an expectation: the real apiserver decides, and the oracle test compares our
 * validator's verdict and field paths with it.
 */
import type { JsonObject, JsonValue } from "../../lib/admission/validate/json";

/** One corpus case. */
export interface CorpusCase {
  id: string;
  description: string;
  apiVersion: string;
  kind: string;
  object: JsonObject;
  expect?: never;
}

const G = "admissionregistration.k8s.io";
type Patch = (o: JsonObject) => void;

const rule = (): JsonObject => ({
  operations: ["CREATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["pods"],
});

export function baseHook(mutating: boolean, name = "hook.example.com"): JsonObject {
  const h: JsonObject = {
    name,
    clientConfig: { url: "https://127.0.0.1:9443/validate" },
    rules: [rule()],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  };
  if (mutating) h.reinvocationPolicy = "Never";
  return h;
}

export function webhookConfig(
  kind: string,
  hooks: JsonObject[],
  name = "oracle-config",
): JsonObject {
  return { apiVersion: `${G}/v1`, kind, metadata: { name }, webhooks: hooks };
}

/** Webhook-level variants: [label, patch on one webhook]. */
export function webhookVariants(mutating: boolean): [string, (h: JsonObject) => void][] {
  const v: [string, (h: JsonObject) => void][] = [];
  const set = (k: string, val: JsonValue | undefined) => (h: JsonObject) => {
    if (val === undefined) delete h[k];
    else h[k] = val;
  };
  v.push(["valid", () => undefined]);
  for (const n of [
    "",
    "a",
    "a.b",
    "a.b.c",
    "A.b.c",
    "a..b.c",
    "a.b.c.",
    "x_y.b.c",
    "-a.b.c",
    "a.b.c-",
    "ab.cd.ef.gh",
    "x".repeat(250) + ".b.c",
    "a.b.c/d",
  ])
    v.push([`name=${JSON.stringify(n).slice(0, 40)}`, set("name", n)]);
  const ops: JsonValue[] = [
    [],
    ["*", "CREATE"],
    ["CREATE", "*"],
    ["create"],
    ["PATCH"],
    ["*"],
    ["CREATE", "UPDATE", "DELETE", "CONNECT"],
    [""],
    ["CREATE", "CREATE"],
    ["*", "*"],
  ];
  for (const o of ops)
    v.push([
      `operations=${JSON.stringify(o)}`,
      (h) => ((h.rules as JsonObject[])[0]!.operations = o),
    ]);
  const groups: JsonValue[] = [
    [],
    ["*", "apps"],
    [""],
    ["apps", "*"],
    ["*"],
    ["", "apps"],
    ["Apps"],
    ["*", "*"],
  ];
  for (const g of groups)
    v.push([
      `apiGroups=${JSON.stringify(g)}`,
      (h) => ((h.rules as JsonObject[])[0]!.apiGroups = g),
    ]);
  const versions: JsonValue[] = [
    [],
    ["*", "v1"],
    [""],
    ["v1", ""],
    ["*"],
    ["v1", "v2"],
    ["V1"],
    ["v1", "*"],
  ];
  for (const x of versions)
    v.push([
      `apiVersions=${JSON.stringify(x)}`,
      (h) => ((h.rules as JsonObject[])[0]!.apiVersions = x),
    ]);
  const resources: JsonValue[] = [
    ["*"],
    ["*/*"],
    ["*/*", "pods"],
    ["pods", "*/*"],
    ["*", "pods"],
    ["pods", "*"],
    ["pods/*", "pods/status"],
    ["pods/status", "pods/*"],
    ["*/status", "pods/status"],
    ["pods/status", "*/status"],
    ["*", "pods/status"],
    ["pods", "pods/status"],
    ["", "pods"],
    [],
    ["pods/*"],
    ["*/*", "*"],
    ["*", "*/*"],
    ["pods", "deployments", "*"],
    ["*", "pods", "configmaps"],
    ["pods", "*", "configmaps"],
    ["*/scale"],
    ["*/scale", "deployments/scale"],
    ["deployments/scale", "*/scale"],
    ["pods/*", "pods/*"],
    ["pods/status/x"],
    ["/status"],
    ["pods/"],
    ["*", "*"],
    ["pods", ""],
    ["*/*", "*/*"],
  ];
  for (const r of resources)
    v.push([
      `resources=${JSON.stringify(r)}`,
      (h) => ((h.rules as JsonObject[])[0]!.resources = r),
    ]);
  for (const s of ["*", "Cluster", "Namespaced", "namespaced", "", "All"])
    v.push([`scope=${JSON.stringify(s)}`, (h) => ((h.rules as JsonObject[])[0]!.scope = s)]);
  v.push(["rules=[]", set("rules", [])]);
  v.push(["rules absent", set("rules", undefined)]);
  v.push(["two rules, second bad", (h) => (h.rules = [rule(), { ...rule(), operations: [] }])]);
  for (const f of ["Fail", "Ignore", "fail", "", "X"])
    v.push([`failurePolicy=${JSON.stringify(f)}`, set("failurePolicy", f)]);
  for (const m of ["Exact", "Equivalent", "exact", "", "Fuzzy"])
    v.push([`matchPolicy=${JSON.stringify(m)}`, set("matchPolicy", m)]);
  for (const s of ["None", "NoneOnDryRun", "Some", "Unknown", "", "none", undefined])
    v.push([`sideEffects=${JSON.stringify(s) ?? "absent"}`, set("sideEffects", s)]);
  for (const t of [0, 1, 10, 30, 31, -1, 100, undefined])
    v.push([`timeoutSeconds=${t ?? "absent"}`, set("timeoutSeconds", t)]);
  if (mutating)
    for (const r of ["Never", "IfNeeded", "never", "", "Always", undefined])
      v.push([`reinvocationPolicy=${JSON.stringify(r) ?? "absent"}`, set("reinvocationPolicy", r)]);
  const arvs: (JsonValue | undefined)[] = [
    [],
    ["v1"],
    ["v1beta1"],
    ["v2"],
    ["v1", "v2"],
    ["v1", "v1"],
    ["V1"],
    ["v1", "1v"],
    ["v1", ""],
    undefined,
    ["v1beta1", "v1"],
    ["v2", "v3"],
    ["v1", "x".repeat(64)],
  ];
  for (const a of arvs)
    v.push([
      `admissionReviewVersions=${JSON.stringify(a) ?? "absent"}`,
      set("admissionReviewVersions", a),
    ]);
  const urls = [
    "https://x.example.com/path",
    "http://x.example.com",
    "https://",
    "https://u@x.example.com",
    "https://u:p@x.example.com",
    "https://x.example.com#frag",
    "https://x.example.com?q=1",
    "ftp://x.example.com",
    "x.example.com",
    "https://x:99999",
    "https://x:abc",
    "https://[::1]:443/",
    "https://[::1",
    "https://x y",
    "https://x/%zz",
    "https://x/a b",
    ":foo",
    "",
    "https://x/path?",
    "//x.example.com/p",
    "HTTPS://X.EXAMPLE.COM",
    "https://x/validate_pods",
    "https://127.0.0.1:8443",
    "https://x/%41",
    "https://x%20y",
    "https://@x",
    "https://x/#",
    "https://x:/p",
  ];
  for (const u of urls) v.push([`url=${JSON.stringify(u)}`, (h) => (h.clientConfig = { url: u })]);
  const svc = (s: JsonObject) => (h: JsonObject) => (h.clientConfig = { service: s });
  v.push(["service ok", svc({ name: "s", namespace: "ns" })]);
  v.push(["service no name", svc({ namespace: "ns" })]);
  v.push(["service no namespace", svc({ name: "s" })]);
  v.push(["service empty", svc({})]);
  for (const port of [0, 1, 443, 65535, 65536, -5])
    v.push([`service port=${port}`, svc({ name: "s", namespace: "ns", port })]);
  const paths = [
    "/",
    "",
    "//",
    "/validate",
    "/validate_pods",
    "/Validate",
    "validate",
    "/a/b",
    "/a//b",
    "/a/",
    "/a.b-c",
    "/v1/mutate?x",
    "/a/b/",
    "///",
    "/-a",
    "/a b",
  ];
  for (const p of paths)
    v.push([`service path=${JSON.stringify(p)}`, svc({ name: "s", namespace: "ns", path: p })]);
  v.push([
    "url and service",
    (h) =>
      (h.clientConfig = { url: "https://x.example.com", service: { name: "s", namespace: "ns" } }),
  ]);
  v.push(["neither url nor service", (h) => (h.clientConfig = {})]);
  v.push(["clientConfig absent", set("clientConfig", undefined)]);
  for (const ca of ["dGVzdA==", "!!!", "abc", "", "dGVzdA"])
    v.push([
      `caBundle=${JSON.stringify(ca)}`,
      (h) => (h.clientConfig = { url: "https://x.example.com", caBundle: ca }),
    ]);
  for (const which of ["namespaceSelector", "objectSelector"]) {
    const sel = (s: JsonValue) => set(which, s);
    v.push([`${which} {}`, sel({})]);
    v.push([`${which} good labels`, sel({ matchLabels: { "example.com/a": "b", c: "" } })]);
    v.push([`${which} bad label key`, sel({ matchLabels: { "a b": "x" } })]);
    v.push([`${which} bad label value`, sel({ matchLabels: { a: "x y" } })]);
    v.push([`${which} long label value`, sel({ matchLabels: { a: "v".repeat(64) } })]);
    v.push([`${which} bad prefix`, sel({ matchLabels: { "Ex/a": "x" } })]);
    v.push([`${which} empty key`, sel({ matchLabels: { "": "x" } })]);
    const expr = (e: JsonObject) => sel({ matchExpressions: [e] });
    v.push([`${which} In no values`, expr({ key: "a", operator: "In" })]);
    v.push([`${which} NotIn values`, expr({ key: "a", operator: "NotIn", values: ["x"] })]);
    v.push([`${which} Exists values`, expr({ key: "a", operator: "Exists", values: ["x"] })]);
    v.push([`${which} DoesNotExist`, expr({ key: "a", operator: "DoesNotExist" })]);
    v.push([`${which} op in`, expr({ key: "a", operator: "in", values: ["x"] })]);
    v.push([`${which} op Gt`, expr({ key: "a", operator: "Gt", values: ["1"] })]);
    v.push([`${which} op empty`, expr({ key: "a", operator: "" })]);
    v.push([`${which} key bad`, expr({ key: "a b", operator: "Exists" })]);
    v.push([`${which} key empty`, expr({ key: "", operator: "Exists" })]);
    v.push([`${which} key prefixed`, expr({ key: "example.com/a", operator: "Exists" })]);
    v.push([`${which} value bad`, expr({ key: "a", operator: "In", values: ["ok", "a b"] })]);
    v.push([`${which} value long`, expr({ key: "a", operator: "In", values: ["v".repeat(64)] })]);
  }
  const mcs: [string, JsonValue][] = [
    ["valid", [{ name: "a", expression: "true" }]],
    ["empty name", [{ name: "", expression: "true" }]],
    ["bad name", [{ name: "a b", expression: "true" }]],
    ["prefixed name", [{ name: "example.com/a", expression: "true" }]],
    ["bad prefix", [{ name: "Ex/a", expression: "true" }]],
    [
      "dup names",
      [
        { name: "a", expression: "true" },
        { name: "a", expression: "false" },
      ],
    ],
    ["blank expression", [{ name: "a", expression: "  " }]],
    [
      "64 conditions",
      Array.from({ length: 64 }, (_, i) => ({ name: `c${i}`, expression: "true" })),
    ],
    [
      "65 conditions",
      Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: "true" })),
    ],
  ];
  const exprs = [
    "foo == 1",
    // Where cel-go's issue texts put the caret: code points, wide ones drawn full-width.
    "'é' == 1",
    "'日本' == 1 && '\t' == 2",
    "object.x ||",
    "Object{ a: 1",
    "1",
    "'a'",
    "object.x",
    "request.name == 'a'",
    "request.foo == 'x'",
    "params.x == 1",
    "a ==",
    "has(object)",
    "authorizer.group('').resource('pods').check('get').allowed()",
    "authorizer.requestResource.check('get').allowed()",
    "namespaceObject.metadata.name == 'x'",
    "object.metadata.name.startsWith('a')",
    "quantity('1').isGreaterThan(quantity('0'))",
    "size(object.metadata.labels) > 0",
    "[1, 'a'].size() == 2",
    "request.userInfo.groups.exists(g, g == 'x')",
    "object.metadata.name == 'a' &&",
    "'a' + 1 == 'b'",
    "oldObject == null",
    "!has(object.spec)",
    "1 + 1",
    "math.greatest(1, 2) == 2",
    "cel.bind(x, 1, x + 1) == 2",
    "[1, 2].sortBy(x, -x)[0] == 2",
    "[?optional.of(1)].size() == 1",
    "{?'a': optional.of(1)}.size() == 1",
    "ip.isCanonical('1.2.3.4')",
    "variables.x == 1",
    "object.?metadata.orValue(null) == null",
    "request.operation in ['CREATE']",
    "type(object) == map",
    "object.metadata.labels['a'] == 'b'",
    "double(1) > 0.5",
    '"unterminated',
    "object.spec.replicas > 1 ? true : false",
    "dyn(1)",
    "null",
    "[true]",
    "{'a': true}['a']",
    "request.dryRun",
    // CEL the apiserver refuses after type-checking or while building the program (literal
    // validators, constant conversions, typed request fields, operators without overloads).
    "3 in ['a', 'b']",
    "!'x' in object.data",
    "request.userInfo.?nope.hasValue()",
    "bool('x')",
    "int('x') == 1",
    "'a'.matches('[')",
    "1 == 1.0",
    "1 < 1.0",
    "[1] == ['a']",
    "{'a': 1} == {'a': 'b'}",
    "!1",
    "-'a' == 'b'",
    "1u == 1",
    "size(1) == 1",
    "uint('-1') == 1u",
    "double('x') == 1.0",
    "timestamp('bad') == timestamp('bad')",
    "duration('1x') == duration('1s')",
    "object.x.matches('[')",
    "int('1') == 1",
    "[1, 2] == [1.0, 2.0]",
    "1 in [1.0]",
    "1 in [1u]",
    "'a' in {'a': 1}",
    "1 in {'a': 1}",
    "1 in ['a', 1.0]",
    "!object.x",
    "!request.dryRun",
    "-request.name == 'x'",
    "string(1) == 1",
    "size('a') == 1u",
    "dyn(1) == 'a'",
    "'😀'.matches('^.$')",
    "'a'.matches('(?=a)')",
    "'a'.matches('[[:alpha:]]')",
    "'a'.matches('a**')",
    "matches('[', 'a')",
    "matches('a', '[')",
    "object.x.matches(r'\\pL')",
    "object.x.matches('\\\\')",
    "duration('1h2m3.5s') > duration('0')",
    "duration('1 s') > duration('0s')",
    "duration('.5s') > duration('0s')",
    "timestamp('2024-02-30T00:00:00Z') > timestamp('2024-01-01T00:00:00Z')",
    "timestamp('2024-02-29T23:59:59.5+01:00') > timestamp('2024-01-01T00:00:00Z')",
    "timestamp('2024-01-01T00:00:00+25:00') > timestamp('2024-01-01T00:00:00Z')",
    "timestamp('2024-01-01T00:00:00+24:00') > timestamp('2024-01-01T00:00:00Z')",
    "timestamp('2024-01-01T9:00:00Z') > timestamp('2024-01-01T00:00:00Z')",
    "timestamp('0001-01-01T00:30:00+01:00') < timestamp('2024-01-01T00:00:00Z')",
    "int('+12') == 12",
    "uint('+1') == 1u",
    "double('1e400') > 0.0",
    "double('Inf') > 0.0",
    "double('1.') == 1.0",
    "bool('True')",
    "bool('yes')",
    "int(1e19) > 0",
    "uint(-1) > 0u",
    "int(string(1.5)) == 1",
    "int(9223372036854775807u) > 0",
    "int(18446744073709551615u) > 0",
    "[1].all(x, int('z') == x)",
    "true || int('z') == 1",
    "request.userInfo.?username.hasValue()",
    "request.?userInfo.?nope.hasValue()",
    "request.kind.?kind.hasValue()",
    "!!'app' in object.metadata.labels",
    "-(-1) == 1",
    "'%s-%d'.format(['a', 1]) == 'a-1'",
    "[1, 2] + ['a'] == []",
    "1 in {1: 'a'}",
    "'a' in ['a', 'b']",
    "size(true) == 1",
    "size('abc') == 3",
    // ext.Strings v2 (base.go at 1.37): no reverse (v3), no compare; format's and the regex
    // library's constant arguments are checked at compile time.
    "'abc'.reverse() == 'cba'",
    "'a'.compare('b') == 0",
    "'%d'.format(['x']) == ''",
    "'%d'.format([1]) == '1'",
    "'%d'.format([object.x]) == '1'",
    "'a'.format([1, 2]) == ''",
    "'%s %s'.format(['a']) == ''",
    "'%z'.format([1]) == ''",
    "'%.2f'.format([1]) == ''",
    "'%x'.format([1.5]) == ''",
    "'%s'.format([[1, 'a']]) == ''",
    "'a'.find('[') == ''",
    "'a'.find('a') == 'a'",
    "'a'.findAll('[') == []",
    "'a'.findAll('[', 1) == []",
    "object.x.find('(') == ''",
    "'a'.charAt(0) == 'a'",
    "strings.quote('a') == 'a'",
    "['a'].join() == 'a'",
    "object.x.compare('b') == 0",
    "compare('a', 'b') == 0",
    "[1].reverse() == [1]",
    "ip('1.2.3.4').family() == 4",
    "format.dns1123Label().validate('a').hasValue()",
    "'100%%'.format([]) == '100%'",
    "'%d %x %o %b'.format([1u, b'a', -1, true]) == ''",
    "'%.3e'.format(['NaN']) == ''",
    "'%b'.format([null]) == ''",
    "'%.f'.format([1.0]) == ''",
    "'%'.format([1]) == ''",
    "object.x.findAll('(', 1) == []",
    "object.cel.bind(1) == 2",
    "[1].map(x, x.compare()) == []",
    "[1].all(i, v, v.compare())",
    // Two-variable comprehensions (ext.TwoVarComprehensions): accepted, and cel-go's errors for
    // iteration variables that are not simple names, the same name twice, the accumulator's name.
    "[1].all(i, v, v > 0)",
    "[1].exists(i, v, v > 0)",
    "[1].existsOne(i, v, v > 0)",
    "{'a': 1}.all(k, v, v > 0)",
    "[1].transformList(i, v, v + 1) == [2]",
    "[1].transformList(i, v, v > 0, v + 1) == [2]",
    "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
    "{'a': 1}.transformMapEntry(k, v, {k: v}) == {'a': 1}",
    "[1].all(a.b, v, true)",
    "[1].all(i, i, true)",
    "[1].exists(__result__, v, true)",
    "[1].all(i, v, true, true)",
    // Literal patterns Go's regexp refuses: back-references, escapes it gives no meaning, \p names
    // it does not know, Python's named back-reference; and ones it accepts.
    "object.metadata.name.matches('(a)\\\\1')",
    "object.metadata.name.matches('\\\\8')",
    "object.metadata.name.matches('\\\\Z')",
    "object.metadata.name.matches('\\\\C')",
    "object.metadata.name.matches('\\\\pX')",
    "object.metadata.name.matches('\\\\cA')",
    "object.metadata.name.matches('\\\\e')",
    "object.metadata.name.matches('(?P<n>a)(?P=n)')",
    "object.metadata.name.matches('[\\\\b]')",
    "object.metadata.name.matches('\\\\p{Old_Italic}')",
    "object.metadata.name.matches('(?i:a)\\\\8')",
    "object.metadata.name.matches('\\\\0')",
    "object.metadata.name.matches('\\\\p{greek}')",
    "matches(object.metadata.name, '\\\\8')",
    "object.metadata.name.matches('(a{500}){3}')",
    "object.metadata.name.matches('(a{333}){3}')",
    // Literals out of range or with escapes CEL does not know: parse errors (invalid int, uint or
    // double literal, token recognition error, invalid unicode code point); and their edges, valid.
    "9223372036854775808 > 0",
    "-9223372036854775809 < 0",
    "0x8000000000000000 > 0",
    "18446744073709551616u > 0u",
    "1e999 > 0.0",
    "'\\x' == 'x'",
    "'\\ud800' == ''",
    "--9223372036854775808 < 0",
    "-(9223372036854775808) < 0",
    "b'\\u00e9' == b''",
    "-9223372036854775808 < 0",
    "1 - -9223372036854775808 < 0",
    "18446744073709551615u > 0u",
    "'\\U0010ffff' != ''",
    // Relations are one precedence, left to right; `!` and `-` do not mix in one prefix run.
    "object != object.metadata.name <= ''",
    "object.metadata.name != 'x' <= true",
    "!-object",
    "-!object",
    "!- object.metadata.name",
    "!-1 == true",
    // Indexes cel-go's checker refuses, and constant keys its planner cannot make a qualifier of.
    "timestamp('2024-01-01T00:00:00Z')[object.metadata.name] == 1",
    "type(0)[1] == 1",
    "{'k': 1}[[]] == 1",
    "object[null] == 1",
    "object[[1]] == 1",
    "object[{'a': 1}] == 1",
    "object[duration('1s')] == 1",
    "object[b'x'] == 1",
    "object[dyn(1)] == 1",
    "bool(string(b'x'))",
    "string(b'\\xff') == ''",
    "int(string(b'12')) == 12",
    // Through a dyn, a conversion with no overload reaches the planner; dyn() of a constant is
    // that constant. Null indexed by an int, or read as an optional, passes the checker.
    "bool(dyn(1)) == true",
    "int(dyn(true)) == 1",
    "bool(dyn(b'x'))",
    "string(dyn(null)) == ''",
    "bool(dyn('x'))",
    "int(dyn('12')) == 12",
    "string(dyn(b'\\xff')) == ''",
    "uint(dyn(-1)) == 1u",
    "object[dyn(null)] == 1",
    "null[1] == ['a']",
    "null['a'].hasValue()",
  ];
  for (const e of exprs)
    mcs.push([`expr ${JSON.stringify(e).slice(0, 60)}`, [{ name: "a", expression: e }]]);
  for (const [label, m] of mcs) v.push([`matchConditions ${label}`, set("matchConditions", m)]);
  return v;
}

/** Configuration-level variants: [label, patch on a configuration of one webhook]. */
export function topVariants(mutating: boolean): [string, Patch][] {
  return [
    ["metadata.name Bad_Name", (o) => ((o.metadata as JsonObject).name = "Bad_Name")],
    ["metadata.name a..b", (o) => ((o.metadata as JsonObject).name = "a..b")],
    ["metadata.name -x", (o) => ((o.metadata as JsonObject).name = "-x")],
    ["metadata.name 254 chars", (o) => ((o.metadata as JsonObject).name = "a".repeat(254))],
    ["metadata.name 253 chars", (o) => ((o.metadata as JsonObject).name = "a".repeat(253))],
    ["metadata.name static suffix", (o) => ((o.metadata as JsonObject).name = "x.static.k8s.io")],
    ["metadata.name UPPER", (o) => ((o.metadata as JsonObject).name = "UPPER")],
    ["generateName only", (o) => (o.metadata = { generateName: "gen-" })],
    ["generateName bad", (o) => (o.metadata = { generateName: "Gen_" })],
    ["bad label", (o) => ((o.metadata as JsonObject).labels = { "a b": "c" })],
    ["bad annotation key", (o) => ((o.metadata as JsonObject).annotations = { "a b": "c" })],
    ["namespace set (cleared)", (o) => ((o.metadata as JsonObject).namespace = "default")],
    ["no webhooks", (o) => delete o.webhooks],
    ["empty webhooks", (o) => (o.webhooks = [])],
    ["duplicate webhook names", (o) => (o.webhooks = [baseHook(mutating), baseHook(mutating)])],
    [
      "three webhooks, third duplicate of first",
      (o) =>
        (o.webhooks = [
          baseHook(mutating, "a.b.c"),
          baseHook(mutating, "d.e.f"),
          baseHook(mutating, "a.b.c"),
        ]),
    ],
    [
      "duplicate empty names",
      (o) => (o.webhooks = [baseHook(mutating, ""), baseHook(mutating, "")]),
    ],
    ["unknown top-level field", (o) => (o.spec = {})],
    ["unknown webhook field", (o) => ((o.webhooks as JsonObject[])[0]!.foo = 1)],
    ["unknown metadata field", (o) => ((o.metadata as JsonObject).foo = "x")],
    [
      "unknown service field",
      (o) =>
        ((o.webhooks as JsonObject[])[0]!.clientConfig = {
          service: { name: "s", namespace: "n", foo: 1 },
        }),
    ],
    ["case-mismatched field", (o) => ((o.webhooks as JsonObject[])[0]!.SideEffects = "None")],
    [
      "two unknown fields",
      (o) => {
        (o.webhooks as JsonObject[])[0]!.foo = 1;
        (o.metadata as JsonObject).bar = 2;
      },
    ],
    ["timeoutSeconds string", (o) => ((o.webhooks as JsonObject[])[0]!.timeoutSeconds = "10")],
    ["timeoutSeconds float", (o) => ((o.webhooks as JsonObject[])[0]!.timeoutSeconds = 1.5)],
    ["name number", (o) => ((o.webhooks as JsonObject[])[0]!.name = 1)],
    ["rules string", (o) => ((o.webhooks as JsonObject[])[0]!.rules = "x")],
    [
      "port string",
      (o) =>
        ((o.webhooks as JsonObject[])[0]!.clientConfig = {
          service: { name: "s", namespace: "n", port: "443" },
        }),
    ],
    ["sideEffects bool", (o) => ((o.webhooks as JsonObject[])[0]!.sideEffects = true)],
    ["webhooks object", (o) => (o.webhooks = {})],
    ["labels list", (o) => ((o.metadata as JsonObject).labels = ["a"])],
    ["null timeout (defaulted)", (o) => ((o.webhooks as JsonObject[])[0]!.timeoutSeconds = null)],
    ["null webhook element", (o) => (o.webhooks = [null])],
    [
      "unknown field plus invalid value",
      (o) => {
        (o.webhooks as JsonObject[])[0]!.foo = 1;
        (o.webhooks as JsonObject[])[0]!.timeoutSeconds = 99;
      },
    ],
    [
      "excluded resource (warning only)",
      (o) =>
        ((o.webhooks as JsonObject[])[0]!.rules = [
          {
            operations: ["CREATE"],
            apiGroups: ["authentication.k8s.io"],
            apiVersions: ["v1"],
            resources: ["tokenreviews"],
          },
        ]),
    ],
    ...ownerReferenceVariants(),
    ...timeVariants(),
  ];
}

/**
 * metav1.Time fields, decoded with Go's time.Parse(time.RFC3339): seen on v1.37.2, a month 13,
 * February 30, hour 25 and offset +25:00 are 400 `parsing time "…": … out of range`.
 */
function timeVariants(): [string, Patch][] {
  const meta = (o: JsonObject) => o.metadata as JsonObject;
  const created = (t: JsonValue): [string, Patch] => [
    `creationTimestamp ${JSON.stringify(t)}`,
    (o) => (meta(o).creationTimestamp = t),
  ];
  return [
    ...[
      "2024-02-29T00:00:00Z",
      "2024-13-01T00:00:00Z",
      "2024-00-01T00:00:00Z",
      "2024-02-30T00:00:00Z",
      "2023-02-29T00:00:00Z",
      "1900-02-29T00:00:00Z",
      "2024-01-01T25:00:00Z",
      "2024-01-01T24:00:00Z",
      "2024-01-01T00:60:00Z",
      "2024-01-01T23:59:60Z",
      "2024-01-01T00:00:00+25:00",
      "2024-01-01T00:00:00+23:61",
      "2024-01-01T00:00:00+24:00",
      "2024-01-01T9:00:00Z",
      "2024-01-01T00:00:00,5Z",
      "2024-01-01T00:00:00.123456789123Z",
      "2024-1-01T00:00:00Z",
      "2024-01-01 00:00:00Z",
      "2024-01-01T00:00:00",
      "2024-01-01T00:00:00Zjunk",
      "2024-01-01T00:00:00\u00e9",
      "",
      null,
      5,
    ].map(created),
    ["deletionTimestamp 2023-02-29", (o) => (meta(o).deletionTimestamp = "2023-02-29T00:00:00Z")],
    [
      "managedFields time second 60",
      (o) =>
        (meta(o).managedFields = [
          {
            manager: "m",
            operation: "Update",
            apiVersion: `${G}/v1`,
            time: "2024-01-01T23:59:60Z",
          },
        ]),
    ],
    [
      "bad creationTimestamp after a type error and an unknown field",
      (o) => {
        (o.webhooks as JsonObject[])[0]!.timeoutSeconds = "10";
        // metadata last in the body, so the decoder meets the type error first
        const m = meta(o);
        delete o.metadata;
        o.metadata = { ...m, foo: 1, creationTimestamp: "2024-13-01T00:00:00Z" };
      },
    ],
  ];
}

const owner = (over: JsonObject = {}, without?: string): JsonObject => {
  const r: JsonObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "owner",
    uid: "6b0e7f5c-0000-4000-8000-000000000001",
    ...over,
  };
  if (without) delete r[without];
  return r;
};

/**
 * metadata.ownerReferences (ValidateOwnerReferences): a valid reference, then each rule broken once.
 * Seen on v1.37.2: a reference without uid, name or apiVersion, an apiVersion `a/b/c`, a core Event
 * as owner and two controllers are all 422.
 */
function ownerReferenceVariants(): [string, Patch][] {
  const refs = (label: string, r: JsonValue[]): [string, Patch] => [
    `ownerReferences ${label}`,
    (o) => ((o.metadata as JsonObject).ownerReferences = r),
  ];
  return [
    refs("valid", [owner({ controller: true, blockOwnerDeletion: false })]),
    refs("no uid", [owner({}, "uid")]),
    refs("no name", [owner({ name: "" })]),
    refs("no apiVersion", [owner({}, "apiVersion")]),
    refs("empty reference", [{}]),
    refs("null reference", [null]),
    refs("apiVersion a/b/c", [owner({ apiVersion: "a/b/c" })]),
    refs("apiVersion group/ (no version)", [owner({ apiVersion: "apps/" })]),
    refs("apiVersion /", [owner({ apiVersion: "/" })]),
    refs("owner Event v1", [owner({ kind: "Event" })]),
    refs("owner Event /v1", [owner({ apiVersion: "/v1", kind: "Event" })]),
    refs("owner Event events.k8s.io/v1", [
      owner({ apiVersion: "events.k8s.io/v1", kind: "Event" }),
    ]),
    refs("two controllers", [
      owner({ controller: true }),
      owner({ name: "second", controller: true }),
    ]),
    refs("three controllers", [
      owner({ controller: true }),
      owner({ name: "second", controller: true }),
      owner({ name: "third", controller: true }),
    ]),
    refs("one controller of two", [owner({ controller: true }), owner({ name: "second" })]),
    refs("unknown field", [owner({ Controller: true })]),
    refs("controller string", [owner({ controller: "true" })]),
  ];
}

function webhookCases(kind: string, mutating: boolean): CorpusCase[] {
  const out: CorpusCase[] = [];
  const variants = webhookVariants(mutating);
  let n = 0;
  for (const [label, patch] of variants) {
    for (const position of [0, 1]) {
      const hooks = [
        baseHook(mutating, "first.example.com"),
        baseHook(mutating, "second.example.com"),
      ].slice(0, position + 1);
      patch(hooks[position]!);
      out.push({
        id: `${kind}-${n++}`,
        description: `${kind}: webhooks[${position}] ${label}`,
        apiVersion: `${G}/v1`,
        kind,
        object: webhookConfig(kind, hooks),
      });
    }
  }
  for (const [label, patch] of topVariants(mutating)) {
    const o = webhookConfig(kind, [baseHook(mutating)]);
    patch(o);
    out.push({
      id: `${kind}-${n++}`,
      description: `${kind}: ${label}`,
      apiVersion: `${G}/v1`,
      kind,
      object: o,
    });
  }
  return out;
}

function vap(spec: JsonObject, name = "oracle-vap"): JsonObject {
  return { apiVersion: `${G}/v1`, kind: "ValidatingAdmissionPolicy", metadata: { name }, spec };
}

export const baseVapSpec = (): JsonObject => ({
  matchConstraints: { resourceRules: [rule()] },
  validations: [{ expression: "true" }],
});

/** ValidatingAdmissionPolicy variants: [label, patch on baseVapSpec()]. */
export function vapVariants(): [string, Patch][] {
  const out: [string, Patch][] = [];
  const v = (label: string, patch: Patch) => out.push([label, patch]);
  v("valid", () => undefined);
  for (const f of ["Fail", "Ignore", "fail", ""])
    v(`failurePolicy=${JSON.stringify(f)}`, (s) => (s.failurePolicy = f));
  const pks: JsonObject[] = [
    { apiVersion: "v1", kind: "ConfigMap" },
    { apiVersion: "", kind: "ConfigMap" },
    { apiVersion: "apps/v1", kind: "Deployment" },
    { apiVersion: "a/b/c", kind: "X" },
    { apiVersion: "Apps/v1", kind: "X" },
    { apiVersion: "apps/", kind: "X" },
    { apiVersion: "apps/V1", kind: "X" },
    { apiVersion: "v1", kind: "" },
    { apiVersion: "v1", kind: "config_map" },
    { apiVersion: "v1", kind: "1abc" },
    {},
    { apiVersion: "/", kind: "X" },
  ];
  for (const pk of pks) v(`paramKind=${JSON.stringify(pk)}`, (s) => (s.paramKind = pk));
  v("matchConstraints absent", (s) => delete s.matchConstraints);
  v("resourceRules empty", (s) => (s.matchConstraints = { resourceRules: [] }));
  v("matchConstraints {}", (s) => (s.matchConstraints = {}));
  for (const rn of [["a"], ["a", "a"], ["a/b"], ["."], [".."], ["a%b"], [""]])
    v(
      `resourceNames=${JSON.stringify(rn)}`,
      (s) => (s.matchConstraints = { resourceRules: [{ ...rule(), resourceNames: rn }] }),
    );
  v(
    "excludeResourceRules bad",
    (s) =>
      (s.matchConstraints = {
        resourceRules: [rule()],
        excludeResourceRules: [{ ...rule(), operations: [] }],
      }),
  );
  v(
    "resourceRules DELETE ok",
    (s) => (s.matchConstraints = { resourceRules: [{ ...rule(), operations: ["DELETE"] }] }),
  );
  v(
    "resourceRules bad resources",
    (s) => (s.matchConstraints = { resourceRules: [{ ...rule(), resources: ["*", "pods"] }] }),
  );
  v(
    "matchPolicy bad",
    (s) => (s.matchConstraints = { resourceRules: [rule()], matchPolicy: "Fuzzy" }),
  );
  v(
    "namespaceSelector bad",
    (s) =>
      (s.matchConstraints = {
        resourceRules: [rule()],
        namespaceSelector: { matchExpressions: [{ key: "a", operator: "In" }] },
      }),
  );
  v(
    "objectSelector bad value",
    (s) =>
      (s.matchConstraints = {
        resourceRules: [rule()],
        objectSelector: { matchLabels: { a: "b c" } },
      }),
  );
  const vals: [string, JsonValue][] = [
    ["empty expression", [{ expression: "" }]],
    ["blank expression", [{ expression: "  " }]],
    ["int", [{ expression: "1" }]],
    ["dyn", [{ expression: "object.x" }]],
    ["undeclared", [{ expression: "foo" }]],
    ["params without paramKind", [{ expression: "params.x == 1" }]],
    ["syntax", [{ expression: "a ==" }]],
    ["message newline", [{ expression: "true", message: "a\nb" }]],
    ["message blank", [{ expression: "true", message: "  " }]],
    ["message ok", [{ expression: "true", message: "ok" }]],
    ["messageExpression blank", [{ expression: "true", messageExpression: "  " }]],
    ["messageExpression int", [{ expression: "true", messageExpression: "1" }]],
    ["messageExpression ok", [{ expression: "true", messageExpression: "'ok'" }]],
    [
      "messageExpression authorizer",
      [
        {
          expression: "true",
          messageExpression: "authorizer.group('').resource('x').check('get').reason()",
        },
      ],
    ],
    ["reason Forbidden", [{ expression: "true", reason: "Forbidden" }]],
    ["reason Bogus", [{ expression: "true", reason: "Bogus" }]],
    ["authorizer", [{ expression: "authorizer.requestResource.check('get').allowed()" }]],
    ["namespaceObject", [{ expression: "namespaceObject.metadata.name == 'x'" }]],
    ["variables without variables", [{ expression: "variables.x == 1" }]],
    ["request field", [{ expression: "request.operation == 'CREATE'" }]],
    ["two-variable comprehension", [{ expression: "object.data.all(k, v, v.size() < 100)" }]],
    // Conditionals cel-go's grammar and checker refuse where cel-js does not.
    ["conditional in a then branch", [{ expression: "true ? true ? true : false : false" }]],
    ["conditional, missing colon", [{ expression: "true ? true ? true : false" }]],
    ["conditional in parentheses", [{ expression: "true ? (true ? true : false) : false" }]],
    ["conditional in an else branch", [{ expression: "false ? true : true ? true : false" }]],
    ["conditional, int and string", [{ expression: "(true ? 1 : 'a') == 1" }]],
    ["conditional, int and double", [{ expression: "(true ? 1 : 2.0) == 1" }]],
    ["conditional, lists", [{ expression: "(true ? [1] : ['a']) == [1]" }]],
    ["conditional, inner refused", [{ expression: "true ? true : true ? 1 : 2 == 2" }]],
    ["has() of a missing request field", [{ expression: "has (request.foo)" }]],
    // Where cel-go locates a list element of the wrong type: at its operator, dot or call.
    ["list of duration and sum", [{ expression: "[duration('1s'), request.name + 'a'] == []" }]],
    ["list of int and comparison", [{ expression: "[1, 'a'.size() > 0] == []" }]],
    [
      "list of timestamp and select",
      [{ expression: "[timestamp('2024-01-01T00:00:00Z'), request.name] == []" }],
    ],
    ["list of int and call", [{ expression: "[1, 'a'.startsWith('b')] == []" }]],
  ];
  // cel-go's recursion limits (250), just below and at them, for each shape that reaches them.
  const deep = (n: number): [string, string][] => [
    ["parentheses", "(".repeat(n) + "true" + ")".repeat(n)],
    ["lists", "[".repeat(n) + "true" + "]".repeat(n) + " == []"],
    ["maps", "{'a': ".repeat(n) + "true" + "}".repeat(n) + " == {}"],
    ["an addition chain", "1" + " + 1".repeat(n) + " > 0"],
    ["a selection chain", "object" + ".a".repeat(n) + " == 1"],
    ["an index chain", "object" + "[0]".repeat(n) + " == 1"],
    ["a member call and additions", "'a'.size()" + " + 1".repeat(n - 1) + " > 0"],
    ["else branches", "true ? true : ".repeat(n) + "false"],
  ];
  for (const n of [249, 250])
    for (const [shape, expression] of deep(n)) vals.push([`${shape}, ${n} deep`, [{ expression }]]);
  for (const [label, val] of vals) v(`validations ${label}`, (s) => (s.validations = val));
  v("no validations nor auditAnnotations", (s) => (s.validations = []));
  const vars: [string, JsonValue, JsonValue][] = [
    ["ok", [{ name: "x", expression: "1" }], [{ expression: "variables.x == 1" }]],
    ["name empty", [{ name: "", expression: "1" }], [{ expression: "true" }]],
    ["name 1a", [{ name: "1a", expression: "1" }], [{ expression: "true" }]],
    ["name reserved", [{ name: "if", expression: "1" }], [{ expression: "true" }]],
    ["expression empty", [{ name: "x", expression: "" }], [{ expression: "true" }]],
    ["undefined variable", [{ name: "x", expression: "1" }], [{ expression: "variables.y == 1" }]],
    ["syntax", [{ name: "x", expression: "1 +" }], [{ expression: "true" }]],
    // How the apiserver declares variables: one after another, each with its own result type.
    [
      "refers to a later one",
      [
        { name: "a", expression: "variables.b" },
        { name: "b", expression: "1" },
      ],
      [{ expression: "true" }],
    ],
    ["refers to itself", [{ name: "a", expression: "variables.a" }], [{ expression: "true" }]],
    [
      "int compared to string",
      [{ name: "x", expression: "1" }],
      [{ expression: "variables.x == 'a'" }],
    ],
    ["string as validation", [{ name: "x", expression: "'s'" }], [{ expression: "variables.x" }]],
    ["bool as validation", [{ name: "x", expression: "true" }], [{ expression: "variables.x" }]],
    ["failed one used", [{ name: "x", expression: "foo" }], [{ expression: "variables.x == 1" }]],
    ["blank one used", [{ name: "x", expression: " " }], [{ expression: "variables.x == 1" }]],
    [
      "same name twice",
      [
        { name: "x", expression: "1" },
        { name: "x", expression: "'s'" },
      ],
      [{ expression: "variables.x == 's'" }],
    ],
    ["map field", [{ name: "x", expression: "{'a': 1}" }], [{ expression: "variables.x.a == 1" }]],
    [
      "list size",
      [{ name: "x", expression: "[1, 2]" }],
      [{ expression: "variables.x.size() == 2" }],
    ],
    [
      "object field",
      [{ name: "x", expression: "object.metadata" }],
      [{ expression: "variables.x.name == 'a'" }],
    ],
    ["empty name used", [{ name: "", expression: "1" }], [{ expression: "variables.x == 1" }]],
    ["bad name used", [{ name: "a-b", expression: "1" }], [{ expression: "true" }]],
    [
      "int plus string",
      [{ name: "x", expression: "1" }],
      [{ expression: "variables.x + 'a' == 'b'" }],
    ],
    [
      "messageExpression reads one",
      [{ name: "x", expression: "'m'" }],
      [{ expression: "true", messageExpression: "variables.x" }],
    ],
  ];
  for (const [label, vs, val] of vars)
    v(`variables ${label}`, (s) => {
      s.variables = vs;
      s.validations = val;
    });
  const aas: [string, JsonValue][] = [
    ["ok", [{ key: "k", valueExpression: "'v'" }]],
    ["bad key", [{ key: "a b", valueExpression: "'v'" }]],
    [
      "dup keys",
      [
        { key: "k", valueExpression: "'v'" },
        { key: "k", valueExpression: "'w'" },
      ],
    ],
    ["empty value", [{ key: "k", valueExpression: "" }]],
    ["int value", [{ key: "k", valueExpression: "1" }]],
    ["null value", [{ key: "k", valueExpression: "null" }]],
    [
      "21 annotations",
      Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: "'v'" })),
    ],
    ["long value", [{ key: "k", valueExpression: "'" + "v".repeat(5200) + "'" }]],
    ["empty key", [{ key: "", valueExpression: "'v'" }]],
  ];
  for (const [label, aa] of aas)
    v(`auditAnnotations ${label}`, (s) => {
      s.auditAnnotations = aa;
      s.validations = [];
    });
  v("matchConditions params with paramKind", (s) => {
    s.paramKind = { apiVersion: "v1", kind: "ConfigMap" };
    s.matchConditions = [{ name: "a", expression: "params.data.x == 'y'" }];
  });
  v(
    "matchConditions params without paramKind",
    (s) => (s.matchConditions = [{ name: "a", expression: "params.data.x == 'y'" }]),
  );
  v("matchConditions bad name", (s) => (s.matchConditions = [{ name: "a b", expression: "true" }]));
  v("matchConditions int", (s) => (s.matchConditions = [{ name: "a", expression: "1" }]));
  v("unknown spec field", (s) => (s.foo = 1));
  return out;
}

/** A ValidatingAdmissionPolicyBinding spec that is valid. */
export const okVapBinding = (): JsonObject => ({ policyName: "p", validationActions: ["Deny"] });

/** ValidatingAdmissionPolicyBinding specs: [label, spec]. */
export function vapBindingSpecs(): [string, JsonObject][] {
  const out: [string, JsonObject][] = [];
  const b = (label: string, spec: JsonObject) => out.push([label, spec]);
  const okB = okVapBinding;
  b("valid", okB());
  b("empty spec", {});
  for (const pn of ["", "Bad_Name", "a.b", "-a"])
    b(`policyName=${JSON.stringify(pn)}`, { ...okB(), policyName: pn });
  const vas: JsonValue[] = [
    [],
    ["Deny"],
    ["Deny", "Warn"],
    ["Deny", "Deny"],
    ["Foo"],
    ["Audit", "Warn"],
    ["Warn", "Audit", "Deny"],
    ["deny"],
  ];
  for (const va of vas)
    b(`validationActions=${JSON.stringify(va)}`, { ...okB(), validationActions: va });
  const prs: JsonObject[] = [
    { name: "x", parameterNotFoundAction: "Deny" },
    { name: "x" },
    { name: "x", parameterNotFoundAction: "Allow" },
    { name: "x", parameterNotFoundAction: "deny" },
    { parameterNotFoundAction: "Deny" },
    { name: "x", selector: {}, parameterNotFoundAction: "Deny" },
    { selector: {}, parameterNotFoundAction: "Deny" },
    { name: "a/b", parameterNotFoundAction: "Deny" },
    { name: "x", namespace: "ns", parameterNotFoundAction: "Deny" },
    {
      selector: { matchExpressions: [{ key: "a", operator: "In" }] },
      parameterNotFoundAction: "Deny",
    },
    { name: "x", parameterNotFoundAction: "" },
    {},
  ];
  for (const pr of prs) b(`paramRef=${JSON.stringify(pr)}`, { ...okB(), paramRef: pr });
  b("matchResources empty rules", { ...okB(), matchResources: {} });
  b("matchResources bad rule", {
    ...okB(),
    matchResources: { resourceRules: [{ ...rule(), operations: ["BAD"] }] },
  });
  b("matchResources DELETE", {
    ...okB(),
    matchResources: { resourceRules: [{ ...rule(), operations: ["DELETE"] }] },
  });
  b("unknown field", { ...okB(), foo: 1 });

  return out;
}

/** A MutatingAdmissionPolicy spec that is valid. */
export const okMapSpec = (): JsonObject => ({
  matchConstraints: { resourceRules: [{ ...rule(), operations: ["CREATE", "UPDATE"] }] },
  reinvocationPolicy: "Never",
  mutations: [
    {
      patchType: "ApplyConfiguration",
      applyConfiguration: {
        expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}",
      },
    },
  ],
});

/** MutatingAdmissionPolicy variants: [label, patch on okMapSpec()]. */
export function mapVariants(): [string, Patch][] {
  const out: [string, Patch][] = [];
  const v = (label: string, patch: Patch) => out.push([label, patch]);
  v("valid", () => undefined);
  v("mutations empty", (s) => (s.mutations = []));
  v("patchType empty", (s) => (s.mutations = [{ patchType: "" }]));
  v("patchType bogus", (s) => (s.mutations = [{ patchType: "Bogus" }]));
  v("JSONPatch missing jsonPatch", (s) => (s.mutations = [{ patchType: "JSONPatch" }]));
  v(
    "JSONPatch ok",
    (s) =>
      (s.mutations = [
        {
          patchType: "JSONPatch",
          jsonPatch: {
            expression: "[JSONPatch{op: 'add', path: '/metadata/labels/a', value: 'b'}]",
          },
        },
      ]),
  );
  v(
    "JSONPatch with applyConfiguration",
    (s) =>
      (s.mutations = [
        {
          patchType: "JSONPatch",
          jsonPatch: { expression: "[]" },
          applyConfiguration: { expression: "Object{}" },
        },
      ]),
  );
  v("ApplyConfiguration missing", (s) => (s.mutations = [{ patchType: "ApplyConfiguration" }]));
  v(
    "ApplyConfiguration with jsonPatch",
    (s) =>
      (s.mutations = [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: "Object{}" },
          jsonPatch: { expression: "[]" },
        },
      ]),
  );
  v(
    "ApplyConfiguration blank",
    (s) =>
      (s.mutations = [
        { patchType: "ApplyConfiguration", applyConfiguration: { expression: " " } },
      ]),
  );
  // Message construction that does not parse: a plain syntax error the apiserver rejects.
  for (const [label, expression] of [
    ["ApplyConfiguration truncated", "Object{ metadata: "],
    ["ApplyConfiguration unbalanced", "Object{ metadata: Object.metadata{ labels: {'a': 'b'} }"],
    ["ApplyConfiguration ternary ok", "Object{ spec: Object.spec{ replicas: 1 in [1] ? 2 : 3 } }"],
  ] as const)
    v(
      label,
      (s) =>
        (s.mutations = [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }]),
    );
  for (const [label, expression] of [
    ["JSONPatch missing comma", "[JSONPatch{op: 'add', path: '/metadata/labels' value: {}}]"],
    [
      "JSONPatch two ok",
      "[JSONPatch{op: 'remove', path: '/a'}, JSONPatch{op: 'add', path: '/b', value: 'x{'}]",
    ],
  ] as const)
    v(label, (s) => (s.mutations = [{ patchType: "JSONPatch", jsonPatch: { expression } }]));
  v("reinvocationPolicy absent", (s) => delete s.reinvocationPolicy);
  v("reinvocationPolicy bogus", (s) => (s.reinvocationPolicy = "Always"));
  v("reinvocationPolicy IfNeeded", (s) => (s.reinvocationPolicy = "IfNeeded"));
  v(
    "DELETE operation",
    (s) => (s.matchConstraints = { resourceRules: [{ ...rule(), operations: ["DELETE"] }] }),
  );
  v(
    "* operation",
    (s) => (s.matchConstraints = { resourceRules: [{ ...rule(), operations: ["*"] }] }),
  );
  v("matchConstraints absent", (s) => delete s.matchConstraints);
  v("failurePolicy bogus", (s) => (s.failurePolicy = "Maybe"));
  v("variables bad name", (s) => (s.variables = [{ name: "a-b", expression: "1" }]));
  v("matchConditions undeclared", (s) => (s.matchConditions = [{ name: "a", expression: "foo" }]));
  v("unknown field", (s) => (s.foo = 1));
  return out;
}

/** MutatingAdmissionPolicyBinding specs: [label, spec]. */
export function mapBindingSpecs(): [string, JsonObject][] {
  const out: [string, JsonObject][] = [];
  const b = (label: string, spec: JsonObject) => out.push([label, spec]);
  b("valid", { policyName: "p" });
  b("empty spec", {});
  b("policyName bad", { policyName: "Bad_Name" });
  b("paramRef no action", { policyName: "p", paramRef: { name: "x" } });
  b("paramRef both", {
    policyName: "p",
    paramRef: { name: "x", selector: {}, parameterNotFoundAction: "Deny" },
  });
  b("matchResources DELETE", {
    policyName: "p",
    matchResources: { resourceRules: [{ ...rule(), operations: ["DELETE"] }] },
  });
  b("matchResources ok", { policyName: "p", matchResources: { resourceRules: [rule()] } });
  b("validationActions unknown", { policyName: "p", validationActions: ["Deny"] });
  return out;
}

function policyCases(): CorpusCase[] {
  const out: CorpusCase[] = [];
  let n = 0;
  const add = (kind: string, apiVersion: string, description: string, object: JsonObject) =>
    out.push({
      id: `${kind}-${apiVersion.split("/")[1]}-${n++}`,
      description: `${kind}: ${description}`,
      apiVersion,
      kind,
      object,
    });
  const vapVariant = (label: string, patch: Patch, name?: string) => {
    const s = baseVapSpec();
    patch(s);
    add("ValidatingAdmissionPolicy", `${G}/v1`, label, vap(s, name));
  };
  for (const [label, patch] of vapVariants()) vapVariant(label, patch);
  vapVariant("metadata.name bad", () => undefined, "Bad_Name");
  for (const [label, spec] of vapBindingSpecs())
    add("ValidatingAdmissionPolicyBinding", `${G}/v1`, label, vapBinding(spec));
  for (const ver of ["v1", "v1beta1", "v1alpha1"]) {
    const av = `${G}/${ver}`;
    for (const [label, patch] of mapVariants()) {
      const s = okMapSpec();
      patch(s);
      add("MutatingAdmissionPolicy", av, label, policyObject(av, "MutatingAdmissionPolicy", s));
    }
    for (const [label, spec] of mapBindingSpecs())
      add(
        "MutatingAdmissionPolicyBinding",
        av,
        label,
        policyObject(av, "MutatingAdmissionPolicyBinding", spec),
      );
  }
  const conditionTimes: [string, string][] = [
    ["ok", "2024-02-29T00:00:00Z"],
    ["day out of range", "2024-02-30T00:00:00Z"],
  ];
  for (const [label, t] of conditionTimes) {
    const o = vap(baseVapSpec());
    o.status = { conditions: [{ type: "Ready", status: "True", lastTransitionTime: t }] };
    add("ValidatingAdmissionPolicy", `${G}/v1`, `status.conditions lastTransitionTime ${label}`, o);
  }
  // Owner references on a binding: errors upstream marks covered by declarative validation, which
  // the binding's declarative rules (policyName, validationActions) must not drop.
  for (const [label, patch] of ownerReferenceVariants()) {
    const o = vapBinding(okVapBinding());
    patch(o);
    add("ValidatingAdmissionPolicyBinding", `${G}/v1`, label, o);
  }
  return out;
}

/** An admission policy or binding object of the given version and kind. */
export function policyObject(apiVersion: string, kind: string, spec: JsonObject): JsonObject {
  // oracle-vap, oracle-vapb, oracle-map, oracle-mapb
  const name = `oracle-${kind.replace(/[a-z]/g, "").toLowerCase()}`;
  return { apiVersion, kind, metadata: { name }, spec };
}

const vapBinding = (spec: JsonObject) =>
  policyObject(`${G}/v1`, "ValidatingAdmissionPolicyBinding", spec);

/** Every corpus case, in a stable order with unique ids. */
export function validationCorpus(): CorpusCase[] {
  return [
    ...webhookCases("ValidatingWebhookConfiguration", false),
    ...webhookCases("MutatingWebhookConfiguration", true),
    ...policyCases(),
  ];
}

/** The REST resource (plural) for a corpus kind. */
export function resourceFor(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith("y") ? lower.slice(0, -1) + "ies" : lower + "s";
}
