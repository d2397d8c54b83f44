import { describe, expect, test } from "vitest";
import { parseCommandLine, parseLabels } from "./args";
import { UsageError } from "./errors";

function bad(argv: string[], message: RegExp): void {
  expect(() => parseCommandLine(argv)).toThrow(UsageError);
  expect(() => parseCommandLine(argv)).toThrow(message);
}

describe("parseCommandLine", () => {
  test("help and version", () => {
    expect(parseCommandLine([])).toEqual({ command: "help", topic: undefined });
    expect(parseCommandLine(["--help"])).toEqual({ command: "help", topic: undefined });
    expect(parseCommandLine(["help", "lint"])).toEqual({ command: "help", topic: "lint" });
    expect(parseCommandLine(["predict", "-h"])).toEqual({ command: "help", topic: "predict" });
    expect(parseCommandLine(["--version"])).toEqual({ command: "version" });
    bad(["help", "deploy"], /no command "deploy"/);
  });

  test("validate: files, stdin, output, context", () => {
    expect(parseCommandLine(["validate", "a.yaml", "dir", "-", "-o", "json"])).toEqual({
      command: "validate",
      inputs: ["a.yaml", "dir", "-"],
      output: "json",
      context: undefined,
      kubeconfig: undefined,
      kubernetesVersion: undefined,
    });
    expect(parseCommandLine(["validate", "--context=prod"])).toMatchObject({
      inputs: [],
      context: "prod",
      output: "text",
    });
    bad(["validate"], /needs FILE, DIR or -/);
    bad(["validate", "-", "-"], /only once/);
    bad(["validate", "x", "--output", "yaml"], /--output must be one of text, json/);
    bad(["validate", "x", "--strict"], /Unknown option '--strict'/);
    bad(["validate", "x", "--context", ""], /--context needs a value/);
  });

  test("lint: --fail-on and --namespaces", () => {
    expect(parseCommandLine(["lint", "cfg"])).toMatchObject({
      failOn: "high",
      namespaces: undefined,
    });
    expect(
      parseCommandLine(["lint", "cfg", "--fail-on", "critical", "--namespaces", "ns.yaml"]),
    ).toMatchObject({
      command: "lint",
      inputs: ["cfg"],
      failOn: "critical",
      namespaces: "ns.yaml",
    });
    bad(["lint", "cfg", "--fail-on", "low"], /--fail-on must be one of critical, high, medium/);
    bad(["lint"], /lint needs FILE or DIR/);
  });

  test("predict: every flag", () => {
    expect(
      parseCommandLine([
        "predict",
        "--config",
        "cfg",
        "--config=more",
        "--object",
        "o.yaml",
        "--operation",
        "update",
        "--old-object",
        "old.yaml",
        "--subresource",
        "scale",
        "--resource",
        "deployments.apps",
        "-n",
        "team",
        "--name",
        "web",
        "--dry-run",
        "--namespace-labels",
        "env=prod,tier=web",
        "--namespace-labels",
        "team=a",
        "--user",
        "alice",
        "--group",
        "devs",
        "--group",
        "ops",
        "-o",
        "json",
      ]),
    ).toEqual({
      command: "predict",
      output: "json",
      context: undefined,
      kubeconfig: undefined,
      kubernetesVersion: undefined,
      admissionManifests: [],
      config: ["cfg", "more"],
      object: "o.yaml",
      operation: "UPDATE",
      oldObject: "old.yaml",
      subresource: "scale",
      resource: "deployments.apps",
      namespace: "team",
      name: "web",
      dryRun: true,
      namespaceLabels: { env: "prod", tier: "web", team: "a" },
      namespaces: undefined,
      user: "alice",
      groups: ["devs", "ops"],
    });
  });

  test("predict: --context replaces --config", () => {
    expect(
      parseCommandLine([
        "predict",
        "--context",
        "prod",
        "--object",
        "p.yaml",
        "--operation",
        "CREATE",
      ]),
    ).toMatchObject({ config: [], context: "prod", operation: "CREATE", subresource: "" });
  });

  test("predict: usage mistakes", () => {
    const base = ["predict", "--config", "c", "--object", "o"];
    bad(["predict", "--object", "o", "--operation", "CREATE"], /needs --config DIR/);
    bad(["predict", "--config", "c", "--operation", "CREATE"], /needs --object FILE/);
    bad(base, /needs --operation CREATE\|UPDATE\|DELETE\|CONNECT/);
    bad([...base, "--operation", "PATCH"], /--operation must be one of/);
    bad([...base, "--operation", "DELETE", "--old-object", "x"], /--old-object is for UPDATE/);
    bad([...base, "--operation", "CONNECT"], /CONNECT is always on a subresource/);
    bad([...base, "--operation", "UPDATE", "--subresource", "a/b"], /one name/);
    bad([...base, "--operation", "CREATE", "--group", "g"], /--group needs --user/);
    bad([...base, "--operation", "CREATE", "extra"], /no positional arguments/);
    bad([...base, "--operation", "CREATE", "--namespace-labels", "novalue"], /not key=value/);
  });

  test("unknown command", () => {
    bad(["deploy"], /no command "deploy": use validate, lint, predict or test/);
  });
});

describe("parseLabels", () => {
  test("commas, repeats, empty values, trailing commas", () => {
    expect(parseLabels(["a=1,b=", "c=x=y,"])).toEqual({ a: "1", b: "", c: "x=y" });
    expect(() => parseLabels(["=v"])).toThrow(UsageError);
  });
});
