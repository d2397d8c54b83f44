import { describe, expect, it } from "vitest";
import { checkCel } from "./cel";

const webhook = { params: false, authorizer: true };

describe("checkCel (verdicts confirmed by the oracle against kube-apiserver 1.37.2)", () => {
  const cases: [string, string, "ok" | "error" | "internal" | "unknown"][] = [
    ["== has no cross-type numeric overload", "1 == 1.0", "error"],
    ["< has (CrossTypeNumericComparisons)", "1 < 1.0", "ok"],
    ["in with a mismatched element type", "3 in ['a', 'b']", "error"],
    ["== between list types", "[1] == ['a']", "error"],
    ["! of a string", "!'x' in object.data", "error"],
    ["!! is dropped by the parser", "!!'app' in object.metadata.labels", "unknown"],
    ["size of an int", "size(1) == 1", "error"],
    ["undefined optional field of request", "request.userInfo.?nope.hasValue()", "error"],
    ["invalid regex literal", "'a'.matches('[')", "error"],
    ["regex literal with a back-reference", "object.metadata.name.matches('(a)\\\\1')", "error"],
    ["regex literal with \\Z", "object.metadata.name.matches('\\\\Z')", "error"],
    ["global matches validates its argument 0", "matches('[', 'a')", "error"],
    ["global matches compiles its pattern with the program", "matches('a', '[')", "internal"],
    ["invalid duration literal", "duration('1x') == duration('1s')", "error"],
    ["invalid timestamp literal", "timestamp('2024-02-30T00:00:00Z') > timestamp(0)", "error"],
    ["constant conversion folded", "int('x') == 1", "internal"],
    ["nested constant conversion", "int(string(1.5)) == 1", "internal"],
    ["uint of a negative literal", "uint(-1) > 0u", "internal"],
    ["format lists may mix types", "'%s-%d'.format(['a', 1]) == 'a-1'", "unknown"],
    ["compile: valid bool", "object.metadata.name == 'a'", "ok"],
    ["compile: undeclared reference", "foo == 1", "error"],
    ["compile: params undeclared for webhooks", "params.x == 1", "error"],
    ["compile: syntax error", "a ==", "error"],
    ["compile: unterminated string", '"unterminated', "error"],
    ["ReturnTypes: int is not bool", "1", "error"],
    ["ReturnTypes: dyn is not bool", "object.x", "error"],
    ["ReturnTypes: dyn(1) is not bool", "dyn(1)", "error"],
    ["HomogeneousAggregateLiterals", "[1, 'a'].size() == 2", "error"],
    ["no operator overload on concrete types", "'a' + 1 == 'b'", "error"],
    ["math.* is not in the apiserver's environment", "math.greatest(1, 2) == 2", "error"],
    ["cel.bind is not in the apiserver's environment", "cel.bind(x, 1, x + 1) == 2", "error"],
    // (Not cel.bind, and no function bind either: undeclared reference to 'bind'.)
    ["a field named cel is not cel.bind", "object.cel.bind(1) == 2", "error"],
    ["sortBy binds its variable (ext.Lists v3)", "[1, 2].sortBy(x, -x)[0] == 2", "unknown"],
    ["optional list element", "[?optional.of(1)].size() == 1", "unknown"],
    // cel-go types it int (optional(T).orValue(T) with T bound by the argument), cel-js dyn.
    ["orValue on a dyn takes its argument's type", "object.x.orValue(1) + 'a' == 'b'", "unknown"],
    ["orValue on a dyn, as the return value", "object.x.orValue(1)", "unknown"],
    // cel-go: "expected type 'string' but found 'map(dyn, dyn)'"; cel-js lets `{}` join anything.
    ["an empty map among strings", "[request.namespace, {}].size() == 2", "unknown"],
    ["an empty map beside a dyn", "[{}, object].size() == 2", "unknown"],
    ["an empty map as a map value", "{'a': {}, 'b': object}.size() == 2", "unknown"],
    // cel-go: "found no matching overload for '_!=_' applied to '(list(string), list(int))'".
    ["a macro over an empty list", "[].filter(e, e != '') != [1, 2]", "unknown"],
    ["optional map entry", "{?'a': optional.of(1)}.size() == 1", "unknown"],
    ["ip.isCanonical (library.IP)", "ip.isCanonical('1.2.3.4')", "unknown"],
    ["unknown field of request", "request.foo == 'x'", "error"],
    [
      "Kubernetes library function cel-js lacks: undecided",
      "quantity('1').isGreaterThan(quantity('0'))",
      "unknown",
    ],
    [
      "authorizer chain: accepted by the apiserver, not flagged",
      "authorizer.requestResource.check('get').allowed()",
      "unknown",
    ],
    ["sets.* namespace: undecided", "sets.contains([1], [1])", "unknown"],
    ["has() of a field request does not have", "has(request.foo)", "error"],
    ["an index into a uint", "1u[request.kind.kind].size() == -1", "error"],
    ["an index into a dyn: undecided", "object[0] == 1", "ok"],
    ["namespaceObject is typed in cel-go: undecided", "!namespaceObject.metadata.name", "unknown"],
    ["authorizer is typed in cel-go: undecided", "!authorizer", "unknown"],
    ["conditional in a then branch (grammar)", "true ? true ? true : false : false", "error"],
    ["conditional in parentheses", "true ? (true ? true : false) : false", "ok"],
    ["conditional with int and string branches", "(true ? 1 : 'a') == 1", "error"],
    ["conditional with dyn branches: undecided", "(true ? object.a : 1) == 1", "ok"],
    ["249 parentheses", "(".repeat(249) + "true" + ")".repeat(249), "ok"],
    ["250 parentheses", "(".repeat(250) + "true" + ")".repeat(250), "error"],
    ["250 additions", "1" + " + 1".repeat(250) + " > 0", "error"],
    ["249 additions", "1" + " + 1".repeat(249) + " > 0", "ok"],
    ["250 else branches", "true ? true : ".repeat(250) + "false", "error"],
    [
      "125 nested additions: the listener's count is not modelled, undecided",
      "(1 + ".repeat(125) + "1" + ")".repeat(125) + " > 0",
      "ok",
    ],
  ];
  for (const [name, expr, want] of cases)
    it(`${name}: ${expr}`, () => expect(checkCel(expr, webhook, "bool").kind).toBe(want));

  // ext.TwoVarComprehensions is in the apiserver's environment (since 1.32); cel-js does not know
  // these macros, so what it says about them (an unknown variable) is no verdict.
  it.each([
    "[1].all(i, v, v > 0)",
    "[1].exists(i, v, v > 0)",
    "[1].existsOne(i, v, v > 0)",
    "[1].exists_one(i, v, v > 0)",
    "{'a': 1}.all(k, v, v > 0)",
    "[1].transformList(i, v, v + 1) == [2]",
    "[1].transformList(i, v, v > 0, v + 1) == [2]",
    "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
    "{'a': 1}.transformMap(k, v, v > 0, v + 1) == {'a': 2}",
    "{'a': 1}.transformMapEntry(k, v, {k: v}) == {'a': 1}",
    "{'a': 1}.transformMapEntry(k, v, v > 0, {k: v}) == {'a': 1}",
    "object.data.all(k, v, v.size() < 100)",
    // Iteration variables that shadow declared ones: cel-js's reading of `request.foo` is not cel-go's.
    "[1].all(object, request, request.foo == 1)",
    "[1].all(i, request, request.?foo.hasValue())",
    // An undeclared name after the comprehension: cel-js stops at the comprehension first.
    "[1].all(i, v, true) && foo == 1",
  ])("a two-variable comprehension is not refused: %s", (expr) =>
    expect(checkCel(expr, webhook, "bool").kind).toBe("unknown"),
  );

  // Literals cel-go's parser reads (VisitInt folds a lone minus sign into the literal).
  it.each([
    "-9223372036854775808 < 0",
    "- 9223372036854775808 < 0",
    "1 - -9223372036854775808 < 0",
    "-0x8000000000000000 < 0",
    "18446744073709551615u > 0u",
    "1.7976931348623157e308 > 0.0",
    "'\\377' == 'ÿ'",
    "'\\U0010ffff' != ''",
  ])("a literal at the edge of its range is valid: %s", (expr) =>
    expect(checkCel(expr, webhook, "bool").kind).toBe("ok"),
  );

  it.each(["br'\\q' == b'\\\\q'", "br'a'.size() > 0"])(
    "a raw bytes literal, which cel-js does not read as cel-go does: no verdict: %s",
    (expr) => expect(checkCel(expr, webhook, "bool").kind).toBe("unknown"),
  );

  it.each([
    // Reported whatever the comprehension: an undeclared name outside it, a conditional that reads
    // no iteration variable.
    "foo == 1 && [1].all(i, v, true)",
    "[1].all(i, v, (true ? 1 : 'a') == 1)",
    // Not a macro (all takes three arguments): an ordinary call of an undeclared function.
    "[1].all(i, v, true, true)",
    "[1].transformList(i, v)",
  ])("around a two-variable comprehension, still refused: %s", (expr) =>
    expect(checkCel(expr, webhook, "bool").kind).toBe("error"),
  );

  it("a call named like a two-variable macro but of another arity is an undeclared function's, at its parenthesis, before its arguments' undeclared names", () => {
    expect(checkCel("[1].all(i, v, true, true)", webhook, "bool")).toEqual({
      kind: "error",
      detail:
        "compilation failed: ERROR: <input>:1:8: undeclared reference to 'all' (in container '')\n | [1].all(i, v, true, true)\n | .......^",
    });
    expect(checkCel("[1].transformList(i, v)", webhook, "bool")).toMatchObject({
      detail: expect.stringContaining("1:18: undeclared reference to 'transformList'"),
    });
    // The receiver's own undeclared name comes first.
    expect(checkCel("x.all(i, v, true, true)", webhook, "bool")).toMatchObject({
      detail: expect.stringContaining("1:1: undeclared reference to 'x'"),
    });
  });

  it("a hostile expression is answered, not a crash", () => {
    const flat = Array.from({ length: 5000 }, () => "'a' == 'a'").join(" && ");
    expect(() => checkCel(flat, webhook, "bool")).not.toThrow();
    expect(() => checkCel("!".repeat(5000) + "true", webhook, "bool")).not.toThrow();
  });

  it("relations are grouped left to right, as cel-go's grammar groups them", () => {
    // (object != kind) <= '': no _<=_ for (bool, string), reported at the <= (the apiserver's
    // message, word for word); cel-js alone read object != (kind <= '') and accepted it.
    expect(checkCel("(object) != request.kind.kind <= ''", webhook, "bool")).toEqual({
      kind: "error",
      detail:
        "compilation failed: ERROR: <input>:1:31: found no matching overload for '_<=_' applied to '(bool, string)'\n | (object) != request.kind.kind <= ''\n | ..............................^",
    });
    // (kind != 'x') <= true compares two bools: valid CEL that cel-js alone refused.
    expect(checkCel("request.kind.kind != 'x' <= true", webhook, "bool").kind).toBe("ok");
  });

  // The apiserver's own messages, from the randomized CEL oracle's disagreements.
  it.each([
    [
      "-timestamp('2024-01-01T00:00:00Z')[-object.metadata.labels] == request.name",
      "1:35: found no matching overload for '_[_]' applied to '(timestamp, dyn)'",
    ],
    [
      "(!type(0)[object.metadata.name[request.operation]]) < object.spec.replicas.exists_one(e, true)",
      "1:10: found no matching overload for '_[_]' applied to '(type(int), dyn)'",
    ],
    [
      "(bool({} != object.metadata.labels) != object.spec.replicas) == dyn(({'k': 1})[[]])",
      "1:79: found no matching overload for '_[_]' applied to '(map(string, int), list(dyn))'",
    ],
    ["!-oldObject", "1:3: Syntax error: no viable alternative at input '-oldObject'"],
  ])("an index or prefix cel-go refuses: %s", (expr, issue) => {
    expect(checkCel(expr, webhook, "bool")).toEqual({
      kind: "error",
      detail: expect.stringContaining(`compilation failed: ERROR: <input>:${issue}\n`),
    });
  });

  it.each([
    ["({1: oldObject[null]}) == oldObject", "types.Null"],
    ["(string(request.dryRun)) in object[null]", "types.Null"],
    ["((true ? 1 : 2)[{[1, 2]: duration('1s')}]) == 1", "*types.baseMap"],
    ["object >= -object[{}[[]]]", "*types.baseList"],
    ["object[duration('1s')] == 1", "types.Duration"],
    ["object[b'x'] == 1", "types.Bytes"],
  ])("a constant key the planner cannot qualify by fails the program: %s", (expr, type) => {
    expect(checkCel(expr, webhook, "bool")).toEqual({
      kind: "internal",
      detail: `program instantiation failed: invalid qualifier type: ${type}`,
    });
  });

  it.each([
    "object['a'] == 1",
    "object[1] == 1",
    "object[-1] == 1",
    "object[1u] == 1",
    "object[true] == 1",
    "object[1.5] == 1",
    "object[dyn('a')] == 1",
    "object[int('1')] == 1",
    "!-1 == true",
    "!(-object) == true",
    "--object == 1",
    "{'k': 1}['k'] == 1",
    "{'k': 1}[dyn('k')] == 1",
    // (cel-go's checker takes null_type indexed by dyn.)
    "(2) in -null[object]",
    // Nor is null indexed by anything else refused: cel-go resolves `null[1]` (accepted beside a
    // list or an int) and `null['a']` (an optional_type(dyn)) by its index overloads.
    "null[1] == ['a']",
    "-null[1] == 1",
    "null['a'].hasValue()",
  ])("still accepted: %s", (expr) => {
    expect(checkCel(expr, webhook, "bool").kind).not.toBe("internal");
    expect(checkCel(expr, webhook, "bool")).not.toMatchObject({
      detail: expect.stringMatching(/_\[_\]|no viable alternative/),
    });
  });

  it("undeclared reference message mirrors cel-go's issue text", () => {
    expect(checkCel("foo", webhook, "bool")).toEqual({
      kind: "error",
      detail:
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo\n | ^",
    });
  });
  // Issue texts as kube-apiserver 1.37.2 (cel-go v0.29.2 and its ANTLR parser) printed them.
  const detail = (expr: string, ret: "bool" | "string" = "bool") => {
    const v = checkCel(expr, webhook, ret);
    return v.kind === "error" ? v.detail : v.kind;
  };
  const EXPR_START =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
  it.each([
    [
      "the caret line is dots up to the column",
      "size(1) == 1",
      "compilation failed: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(1) == 1\n | ....^",
    ],
    [
      "columns count code points; a wide one is drawn full-width",
      "'é' == 1",
      "compilation failed: ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(string, int)'\n | 'é' == 1\n | .\uff0e..^",
    ],
    [
      "an undefined field is reported at its dot",
      "request.foo == 'x'",
      "compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'x'\n | .......^",
    ],
    [
      "an operand missing at the end",
      "a ==",
      `compilation failed: ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}\n | a ==\n | ....^`,
    ],
    [
      "a string never closed: the stray text, then the end of input",
      '"unterminated',
      `compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: '"unterminated'\n | "unterminated\n | ^\nERROR: <input>:1:14: Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}\n | "unterminated\n | .............^`,
    ],
    [
      "a conditional's branches of different types, at its ?",
      "(true ? 1 : 'a') == 1",
      "compilation failed: ERROR: <input>:1:7: found no matching overload for '_?_:_' applied to '(bool, int, string)'\n | (true ? 1 : 'a') == 1\n | ......^",
    ],
    [
      "a conditional in a then branch, at the inner ?",
      "true ? true ? 1 : 2 : 3",
      "compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '?' expecting ':'\n | true ? true ? 1 : 2 : 3\n | ............^",
    ],
    [
      "has() of an undefined request field, at the call's parenthesis",
      "has(request.foo)",
      "compilation failed: ERROR: <input>:1:4: undefined field 'foo'\n | has(request.foo)\n | ...^",
    ],
    [
      "an index into a scalar, at the [",
      "1u[request.kind.kind].size() == -1",
      "compilation failed: ERROR: <input>:1:3: found no matching overload for '_[_]' applied to '(uint, string)'\n | 1u[request.kind.kind].size() == -1\n | ..^",
    ],
    [
      "the visitor's recursion limit, with no location",
      "object" + ".a".repeat(250) + " == 1",
      "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded",
    ],
    [
      "the listener's recursion limit, with no location",
      "[".repeat(250) + "true" + "]".repeat(250) + " == []",
      "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250",
    ],
    ["null's type is null_type", "null", "must evaluate to bool but got null_type"],
    [
      "an int literal past int64",
      "9223372036854775808 > 0",
      "compilation failed: ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808 > 0\n | ^",
    ],
    [
      "a negative int literal past int64, at its sign",
      "-9223372036854775809 < 0",
      "compilation failed: ERROR: <input>:1:1: invalid int literal\n | -9223372036854775809 < 0\n | ^",
    ],
    [
      "a hexadecimal int literal past int64",
      "0x8000000000000000 > 0",
      "compilation failed: ERROR: <input>:1:1: invalid int literal\n | 0x8000000000000000 > 0\n | ^",
    ],
    [
      "a sign not folded into the literal: a run of minus signs negates",
      "--9223372036854775808 < 0",
      "compilation failed: ERROR: <input>:1:3: invalid int literal\n | --9223372036854775808 < 0\n | ..^",
    ],
    [
      "a sign not folded into the literal: parentheses",
      "-(9223372036854775808) < 0",
      "compilation failed: ERROR: <input>:1:3: invalid int literal\n | -(9223372036854775808) < 0\n | ..^",
    ],
    [
      "every int literal past int64",
      "[9223372036854775808, 99999999999999999999] == []",
      "compilation failed: ERROR: <input>:1:2: invalid int literal\n | [9223372036854775808, 99999999999999999999] == []\n | .^\nERROR: <input>:1:23: invalid int literal\n | [9223372036854775808, 99999999999999999999] == []\n | ......................^",
    ],
    [
      "a uint literal past uint64",
      "18446744073709551616u > 0u",
      "compilation failed: ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u > 0u\n | ^",
    ],
    [
      "a double literal past float64",
      "1e999 > 0.0",
      "compilation failed: ERROR: <input>:1:1: invalid double literal\n | 1e999 > 0.0\n | ^",
    ],
    [
      "a double literal past float64, its sign folded in",
      "1 - -1e999 < 0.0",
      "compilation failed: ERROR: <input>:1:5: invalid double literal\n | 1 - -1e999 < 0.0\n | ....^",
    ],
    [
      "an escape CEL's lexer does not know (the first of cel-go's issues)",
      "'\\x' == 'x'",
      "compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\x''\n | '\\x' == 'x'\n | ^",
    ],
    [
      "an unknown escape in bytes: the lexer's error starts at the quote",
      "b'\\q' == b''",
      "compilation failed: ERROR: <input>:1:2: Syntax error: token recognition error at: ''\\q'\n | b'\\q' == b''\n | .^",
    ],
    [
      "a lexer error later in the literal comes first",
      "'\\ud800\\q' == ''",
      "compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\ud800\\q'\n | '\\ud800\\q' == ''\n | ^",
    ],
    [
      "a surrogate escape",
      "'a' + '\\ud800' == ''",
      "compilation failed: ERROR: <input>:1:7: invalid unicode code point\n | 'a' + '\\ud800' == ''\n | ......^",
    ],
    [
      "\\u in bytes",
      "b'\\u00e9' == b''",
      "compilation failed: ERROR: <input>:1:1: unable to unescape string\n | b'\\u00e9' == b''\n | ^",
    ],
    [
      "a comprehension's iteration variable that is not a simple name, at that argument",
      "[1].all(a.b, v, true)",
      "compilation failed: ERROR: <input>:1:10: argument must be a simple name\n | [1].all(a.b, v, true)\n | .........^",
    ],
    [
      "both iteration variables the same name, at the second",
      "[1].all(i, i, true)",
      "compilation failed: ERROR: <input>:1:12: duplicate variable name: i\n | [1].all(i, i, true)\n | ...........^",
    ],
    [
      "an iteration variable named as the accumulator",
      "[1].exists(__result__, v, true)",
      "compilation failed: ERROR: <input>:1:12: iteration variable overwrites accumulator variable\n | [1].exists(__result__, v, true)\n | ...........^",
    ],
    [
      "every comprehension's error, in the order of the text",
      "[1].all(1, v, true) && [1].transformMap(i, i, v > 0, v)",
      "compilation failed: ERROR: <input>:1:9: argument must be a simple name\n | [1].all(1, v, true) && [1].transformMap(i, i, v > 0, v)\n | ........^\nERROR: <input>:1:44: duplicate variable name: i\n | [1].all(1, v, true) && [1].transformMap(i, i, v > 0, v)\n | ...........................................^",
    ],
  ])("%s", (_name, expr, want) => expect(detail(expr)).toBe(want));

  it("params are declared for policies with a paramKind", () => {
    expect(checkCel("params.x == 1", { params: true, authorizer: true }, "bool").kind).toBe("ok");
  });
});
