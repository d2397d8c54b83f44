import { describe, expect, it } from "vitest";
import { checkCel } from "./cel";

const webhook = { params: false, authorizer: true };

describe("checkCel (verdicts confirmed by the oracle against kube-apiserver 1.37.2)", () => {
  const cases: [string, string, "ok" | "error" | "unknown"][] = [
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
  ];
  for (const [name, expr, want] of cases)
    it(`${name}: ${expr}`, () => expect(checkCel(expr, webhook, "bool").kind).toBe(want));

  it("undeclared reference message mirrors cel-go's issue text", () => {
    expect(checkCel("foo", webhook, "bool")).toEqual({
      kind: "error",
      detail:
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo\n | ^",
    });
  });
  it("params are declared for policies with a paramKind", () => {
    expect(checkCel("params.x == 1", { params: true, authorizer: true }, "bool").kind).toBe("ok");
  });
});
