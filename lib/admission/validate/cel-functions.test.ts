import { describe, expect, it } from "vitest";
import { checkCel } from "./cel";

const webhook = { params: false, authorizer: false };
const detail = (expr: string) => {
  const v = checkCel(expr, webhook, "bool");
  return v.kind === "error" || v.kind === "internal" ? `${v.kind}: ${v.detail}` : v.kind;
};

// The apiserver's own texts (kube-apiserver 1.37.2, validation oracle).
describe("calls the apiserver's CEL environment does not declare", () => {
  it("a string method of a later strings version, or of no library", () => {
    expect(detail("'abc'.reverse() == 'cba'")).toBe(
      "error: compilation failed: ERROR: <input>:1:14: found no matching overload for 'reverse' applied to 'string.()'\n | 'abc'.reverse() == 'cba'\n | .............^",
    );
    expect(detail("'a'.compare('b') == 0")).toBe(
      "error: compilation failed: ERROR: <input>:1:12: undeclared reference to 'compare' (in container '')\n | 'a'.compare('b') == 0\n | ...........^",
    );
    expect(detail("object.x.compare('b') == 0")).toMatch(/undeclared reference to 'compare'/);
    expect(detail("object.cel.bind(1) == 2")).toBe(
      "error: compilation failed: ERROR: <input>:1:16: undeclared reference to 'bind' (in container '')\n | object.cel.bind(1) == 2\n | ...............^",
    );
    expect(detail("[1].map(x, x.compare()) == []")).toBe(
      "error: compilation failed: ERROR: <input>:1:21: undeclared reference to 'compare' (in container '')\n | [1].map(x, x.compare()) == []\n | ....................^",
    );
  });
  it("leaves declared functions, namespaces and lists' reverse alone", () => {
    for (const e of [
      "'a'.charAt(0) == 'a'",
      "strings.quote('a') == 'a'",
      "['a'].join() == 'a'",
      "object.x.reverse() == 1",
      "[1].reverse() == [1]",
      "'a'.lowerAscii() == 'a'",
      "ip('1.2.3.4').family() == 4",
      "format.dns1123Label().validate('a').hasValue()",
    ])
      expect(detail(e), e).not.toMatch(/^error|^internal/);
  });
});

describe("string.format with constant arguments (cel-go's format validator)", () => {
  it.each([
    [
      "'%d'.format(['x']) == ''",
      "ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given string",
    ],
    [
      "'a'.format([1, 2]) == ''",
      "ERROR: <input>:1:11: too many arguments supplied to string.format (expected 0, got 2)",
    ],
    ["'%s %s'.format(['a']) == ''", "ERROR: <input>:1:15: index 1 out of range"],
    [
      "'%z'.format([1]) == ''",
      'ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause "z"',
    ],
    [
      "'%.2f'.format([1]) == ''",
      "ERROR: <input>:1:16: error during formatting: fixed-point clause can only be used on doubles, was given int",
    ],
    [
      "'%x'.format([1.5]) == ''",
      "ERROR: <input>:1:14: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
    ],
  ])("%s", (expr, head) => {
    expect(detail(expr)).toContain(`error: compilation failed: ${head}\n`);
  });
  it("accepts what the validator accepts", () => {
    for (const e of [
      "'%d'.format([1]) == '1'",
      "'%d'.format([object.x]) == '1'",
      "'%s'.format([[1, 'a']]) == ''",
      "'100%%'.format([]) == '100%'",
      "'%d %x %o %b'.format([1u, b'a', -1, true]) == ''",
      "'%.3e'.format(['NaN']) == ''",
    ])
      expect(detail(e), e).not.toMatch(/^error|^internal/);
  });
});

describe("regex library calls with a constant pattern Go refuses", () => {
  it("fails building the program, as matches does", () => {
    expect(detail("'a'.find('[') == ''")).toBe(
      "internal: program instantiation failed: error parsing regexp: missing closing ]: `[`",
    );
    expect(detail("object.x.findAll('(', 1) == []")).toBe(
      "internal: program instantiation failed: error parsing regexp: missing closing ): `(`",
    );
    expect(detail("'a'.find('a') == 'a'")).not.toMatch(/^error|^internal/);
  });
});
