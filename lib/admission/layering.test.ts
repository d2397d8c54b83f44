/**
 * lib/admission is layered by subject folder. Each folder declares the folders it may import
 * (LAYERS); an import between folders outside that list fails, as does any import cycle between
 * files or between folders, and a .ts file outside a declared folder. Tests are held to the
 * folders too (they sit beside what they prove) but may import any folder, since a test of a low
 * layer may drive it through a high one (the matching oracle compares `predict` with the
 * apiserver).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.dirname(new URL(import.meta.url).pathname);

/**
 * The folders, each with the folders it may import (its own files it may always import). Listed
 * bottom up: the shared model first, the reports and checks that read everything last.
 */
const LAYERS = {
  /** The admission request, the cluster snapshot, label selectors, rules, paramRef, identities. */
  model: [],
  /** CEL and RE2 as the apiserver's cel-go computes them. */
  cel: [],
  /** Policy engines: their policies, which admission objects they own, the joins between. */
  engines: ["model"],
  /** The apiserver's own validation of admission objects (what a create or update is refused for). */
  validate: ["model", "cel"],
  /** Hooks and policies read from the apiserver's manifest directories, judged as it judges them. */
  manifests: ["model", "validate"],
  /** Does one hook apply to one request, and if not why: compile, selectors, rules, conditions. */
  matching: ["model", "cel", "validate"],
  /** The in-tree PodSecurity admission plugin. */
  "pod-security": ["model", "validate"],
  /** Which hooks one request reaches, in the apiserver's order of stages and rounds. */
  prediction: ["model", "matching", "pod-security"],
  /** The historical APIs: initializers, v1beta1 hooks, ExternalAdmissionHookConfiguration. */
  historical: ["model", "matching", "prediction"],
  /** A request from its parts, and a prediction as the report the CLI and the page show. */
  report: ["model", "validate", "matching", "pod-security", "prediction", "historical", "engines"],
  /** Audit events and status messages read as admission decisions. */
  audit: [],
  /** A hook's health: the apiserver's metrics, its backend, its CA bundle. */
  health: [],
  /** The risk linter and the bootstrap dependency graph it reads. */
  lint: ["model", "matching", "audit", "health", "engines"],
  /** The exemption matrix: which hooks intercept which namespaces. */
  exemptions: ["model", "matching"],
  /** Who wrote which field, from managedFields; reconcile fights between field managers. */
  provenance: [],
  /** Hooks and policies configured outside the API, inferred from metrics and decisions. */
  "outside-api": ["model", "audit", "health"],
  /** Admission test files (the format, its importers) and the runner that checks their cases. */
  testing: ["model", "cel", "validate", "matching", "prediction", "report", "pod-security"],
  /** Changes of admission objects over time: their diffs, actors and effects on decisions. */
  history: ["health", "audit"],
  /** Break-glass: the patch that lets writes through, its annotation, the per-field revert. */
  "break-glass": ["provenance"],
  /** Clusters of a fleet summarised, and the same objects compared across them (drift). */
  fleet: ["model", "matching", "health", "lint", "exemptions", "engines"],
} as const satisfies Record<string, readonly string[]>;

type Folder = keyof typeof LAYERS;
type Layers = Readonly<Record<string, readonly string[]>>;
/** Files that may sit at the top of lib/admission: this test alone. */
const ROOT_FILES = ["layering.test.ts"];

interface SourceFile {
  /** Path below lib/admission, e.g. `matching/match.ts`. */
  readonly file: string;
  readonly isTest: boolean;
  /** Files of lib/admission it imports, as paths below lib/admission (extension dropped). */
  readonly imports: readonly string[];
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(name)) out.push(path.relative(ROOT, p));
  }
  return out;
}

const IMPORT = /(?:from|import)\s*\(?\s*"((?:@\/lib\/admission\/|\.\.?\/)[^"]+)"/g;

function sourceFiles(): SourceFile[] {
  return walk(ROOT).map((file) => {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const imports = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? "";
      const target = spec.startsWith("@/lib/admission/")
        ? spec.slice("@/lib/admission/".length)
        : path.normalize(path.join(path.dirname(file), spec));
      if (!target.startsWith("..")) imports.add(target.replace(/\.(tsx?|json)$/, ""));
    }
    return { file, isTest: /\.test\.tsx?$/.test(file), imports: [...imports] };
  });
}

const folderOf = (file: string): string => (file.includes("/") ? file.split("/")[0]! : "");

/** Files that sit in no declared folder. */
function strays(files: readonly string[], layers: Layers): string[] {
  return files.filter((f) => !(folderOf(f) in layers) && !ROOT_FILES.includes(f));
}

/** Imports from one folder into another that the importer's layer does not declare. */
function wrongWayImports(graph: readonly SourceFile[], layers: Layers): string[] {
  const found: string[] = [];
  for (const { file, isTest, imports } of graph) {
    if (isTest) continue;
    const from = folderOf(file);
    for (const target of imports) {
      const to = folderOf(target);
      if (to === from || !(to in layers)) continue;
      if (!(layers[from] ?? []).includes(to)) found.push(`${file} → ${target} (${from} → ${to})`);
    }
  }
  return found;
}

/** Every cycle in a graph, each as the chain of nodes that closes it. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, "open");
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      if (state.get(d) === "open") found.push([...stack.slice(stack.indexOf(d)), d].join(" → "));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return found;
}

/** The production import graph between files (tests left out: nothing imports them). */
function fileGraph(graph: readonly SourceFile[]): Map<string, string[]> {
  return new Map(
    graph
      .filter((s) => !s.isTest)
      .map((s) => [s.file.replace(/\.tsx?$/, ""), [...s.imports]] as [string, string[]]),
  );
}

/** The production import graph between folders. */
function folderGraph(graph: readonly SourceFile[]): Map<string, string[]> {
  const g = new Map<string, Set<string>>();
  for (const { file, isTest, imports } of graph) {
    if (isTest) continue;
    const from = folderOf(file);
    const deps = g.get(from) ?? new Set<string>();
    for (const t of imports) if (folderOf(t) !== from) deps.add(folderOf(t));
    g.set(from, deps);
  }
  return new Map([...g].map(([k, v]) => [k, [...v]]));
}

const source = (file: string, ...imports: string[]): SourceFile => ({
  file,
  isTest: file.endsWith(".test.ts"),
  imports,
});

describe("lib/admission layering", () => {
  const graph = sourceFiles();

  it("declares its layers without a cycle, each naming only declared folders", () => {
    const declared = new Map(Object.entries(LAYERS).map(([k, v]) => [k, [...v]]));
    expect(cycles(declared)).toEqual([]);
    for (const deps of declared.values())
      for (const d of deps) expect(Object.keys(LAYERS)).toContain(d);
  });

  it("keeps every file in a declared folder", () => {
    expect(
      strays(
        graph.map((s) => s.file),
        LAYERS,
      ),
    ).toEqual([]);
    for (const folder of Object.keys(LAYERS) as Folder[]) {
      expect(
        graph.some((s) => folderOf(s.file) === folder),
        folder,
      ).toBe(true);
    }
  });

  it("imports only down the declared layers", () => {
    expect(wrongWayImports(graph, LAYERS)).toEqual([]);
  });

  it("has no import cycle between files or between folders", () => {
    expect(cycles(fileGraph(graph))).toEqual([]);
    expect(cycles(folderGraph(graph))).toEqual([]);
  });

  it("keeps the compiled-snapshot types below compile, match and match-context", () => {
    const compiled = graph.find((s) => s.file === "matching/compiled.ts");
    expect(
      compiled?.imports.filter((d) => /^matching\/(compile|match|match-context)$/.test(d)),
    ).toEqual([]);
  });

  // The checks themselves, on synthetic graphs: each must fail when its rule is broken.

  it("fails on a wrong-way import between folders", () => {
    const g = [
      source("prediction/predict.ts", "matching/match"),
      source("matching/match.ts", "model/request", "prediction/order"),
      source("model/request.ts"),
      source("prediction/order.ts"),
    ];
    expect(wrongWayImports(g, LAYERS)).toEqual([
      "matching/match.ts → prediction/order (matching → prediction)",
    ]);
    expect(cycles(folderGraph(g))).toEqual(["prediction → matching → prediction"]);
    // A test may reach up: the oracle of matching drives `predict`.
    expect(wrongWayImports([source("matching/x.test.ts", "prediction/predict")], LAYERS)).toEqual(
      [],
    );
  });

  it("fails on a file outside the declared folders", () => {
    expect(
      strays(["match.ts", "matching/match.ts", "layering.test.ts", "misc/x.ts"], LAYERS),
    ).toEqual(["match.ts", "misc/x.ts"]);
  });

  it("finds a cycle when there is one", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(cycles(g)).toEqual(["a.ts → b.ts → c.ts → a.ts"]);
  });
});
