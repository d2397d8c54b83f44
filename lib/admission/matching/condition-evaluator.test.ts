import { expect, test } from "vitest";
import {
  celRequest,
  compileMatchConditions,
  evaluateMatchConditions,
  toCelValue,
} from "./condition-evaluator";
import { requestResource, type AdmissionRequest } from "../model/request";
import type { KubernetesMinor } from "../model/kubernetes-minor";

function verdict(expression: string, object: unknown = {}, minor?: KubernetesMinor) {
  const compiled = compileMatchConditions([{ name: "c", expression }], minor);
  return evaluateMatchConditions(compiled, () => ({
    object: toCelValue(object),
    oldObject: null,
    request: toCelValue({ operation: "CREATE" }),
  })).kind;
}

// These would answer differently with cel-js's own built-ins (the renaming in goSemantics).
test("matches, substring, indexOf and string() follow cel-go, not cel-js", () => {
  expect(verdict("object.s.matches('^.$')", { s: "😀" })).toBe("match");
  expect(verdict("object.s.matches('\\\\pL')", { s: "é" })).toBe("match");
  expect(verdict("object.s.substring(1) == 'é'", { s: "😀é" })).toBe("match");
  expect(verdict("object.s.indexOf('é') == 1", { s: "😀é" })).toBe("match");
  expect(verdict("object.s.split('').size() == 2", { s: "😀é" })).toBe("match");
  expect(verdict("string(100000000.0) == '1e+08'")).toBe("match");
  expect(verdict("matches('ab', '^a')")).toBe("match");
});

test("each minor's cel-go: v0.26.0 (1.35, 1.36) finds '' at an offset past the end there, v0.29.2 (1.37) at the end", () => {
  for (const minor of ["1.35", "1.36"] as const) {
    expect(verdict("'abc'.indexOf('', 5) == 5", {}, minor)).toBe("match");
    expect(verdict("'abc'.indexOf('', -1) == -1", {}, minor)).toBe("match");
    expect(verdict("'abc'.lastIndexOf('', 9) == 9", {}, minor)).toBe("match");
  }
  expect(verdict("'abc'.indexOf('', 5) == 3", {}, "1.37")).toBe("match");
  expect(verdict("'abc'.indexOf('', 5) == 3")).toBe("match");
  expect(verdict("'abc'.indexOf('', -1) == -1", {}, "1.37")).toBe("error");
  expect(verdict("'abc'.lastIndexOf('', 9) == 3", {}, "1.37")).toBe("match");
});

test("what cel-go raises is an error; what cannot be modelled is not guessed", () => {
  expect(verdict("object.s.substring(10) == ''", { s: "abc" })).toBe("error");
  expect(verdict("object.s.matches('(?m)^a')", { s: "a" })).toBe("indeterminate");
  expect(verdict("dyn({'a': 1}) == {'a': 1u}")).toBe("indeterminate");
  expect(verdict("object.n == uint(1)", { n: 1 })).toBe("indeterminate");
});

test("relations are grouped left to right, as cel-go groups them", () => {
  // (s != 'a') <= true: bools compared, true whatever s is. cel-js alone read s != ('a' <= true).
  expect(verdict("object.s != 'a' <= true", { s: "b" })).toBe("match");
  expect(verdict("object.s == 'a' < true", { s: "b" })).toBe("match");
  expect(verdict("object.s == 'a' < true", { s: "a" })).toBe("no-match");
});

test("request omits what the apiserver's JSON omits (omitempty), so reading it is an error", () => {
  const r: AdmissionRequest = {
    group: "",
    version: "v1",
    resource: "namespaces",
    subresource: "",
    kind: { group: "", version: "v1", kind: "Namespace" },
    operation: "CREATE",
    name: "",
    dryRun: false,
    userInfo: { username: "admin", groups: [] },
  };
  const request = celRequest(r, r.kind, requestResource(r));
  const run = (expression: string) =>
    evaluateMatchConditions(compileMatchConditions([{ name: "c", expression }]), () => ({
      object: null,
      oldObject: null,
      request,
    })).kind;
  expect(run("request.subResource == ''")).toBe("error");
  expect(run("has(request.name) || has(request.namespace) || has(request.userInfo.groups)")).toBe(
    "no-match",
  );
  expect(run("request.dryRun == false && request.operation == 'CREATE'")).toBe("match");
  expect(run("request.uid != ''")).toBe("indeterminate"); // generated per request
});
