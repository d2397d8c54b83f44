/**
 * lib/admission's modules import each other one way: the shared model (model.ts) sits below
 * compile, match, match-context and order, and no chain of imports leads back to where it began.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DIR = path.dirname(new URL(import.meta.url).pathname);

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(DIR)) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    const text = readFileSync(path.join(DIR, file), "utf8");
    const deps = new Set<string>();
    for (const m of text.matchAll(/from "(?:@\/lib\/admission\/|\.\/)([\w-]+)"/g)) {
      if (m[1]) deps.add(`${m[1]}.ts`);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/** Every import cycle, each as the chain of files that closes it. */
function cycles(graph: Map<string, string[]>): string[] {
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

describe("lib/admission imports", () => {
  it("has no import cycle", () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it("finds a cycle when there is one (the check itself works)", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(cycles(g)).toEqual(["a.ts → b.ts → c.ts → a.ts"]);
  });

  it("keeps the shared model below the modules that use it", () => {
    const g = importGraph();
    expect(
      g
        .get("model.ts")
        ?.filter((d) => ["compile.ts", "match.ts", "match-context.ts", "order.ts"].includes(d)),
    ).toEqual([]);
  });
});
