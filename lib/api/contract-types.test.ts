/**
 * A route's handler and its browser client cannot disagree on a shape: both are typed by the
 * route's contract, so the TypeScript compiler refuses a handler answering another shape, an
 * error without what the contract's error adds, a client sending another body or reading the
 * answer as another type. Proven here by compiling small fixtures against the real contracts,
 * respond/fail and callApi: the wrong ones must be refused, the right ones accepted.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

const HEAD = `
import { fail, respond } from "@/server/http/respond";
import { callApi } from "@/lib/api/client";
import { overviewRoute } from "@/lib/api/overview";
import { rememberContextRoute } from "@/lib/api/contexts";
import { sessionRoute, type SessionInfo } from "@/lib/api/session";
import { renameConfigurationRoute } from "@/lib/api/webhooks";
import { dryRunRoute } from "@/lib/api/predict";
`;

/** Each fixture: whether the compiler must accept it, and its code. */
const FIXTURES: Record<string, { ok: boolean; code: string }> = {
  "handler answering the contract's shape": {
    ok: true,
    code: `export const r = respond(overviewRoute, {
      context: "c", server: "https://x", version: { gitVersion: "v1.37.2" }, apis: [],
    });`,
  },
  "handler answering a field short": {
    ok: false,
    code: `export const r = respond(overviewRoute, {
      context: "c", server: "https://x", version: { gitVersion: "v1.37.2" },
    });`,
  },
  "handler answering a field of another type": {
    ok: false,
    code: `export const r = respond(sessionRoute, {
      username: "u", groups: [], via: "token", signedInWith: "password",
    });`,
  },
  "handler answering another route's shape": {
    ok: false,
    code: `export const r = respond(sessionRoute, { start: "ctx" });`,
  },
  "handler failing with the contract's error": {
    ok: true,
    code: `export const r = fail(renameConfigurationRoute, {
      status: 409, reason: "Conflict", message: "m", steps: [{ step: "create", ok: false }],
    });`,
  },
  "handler failing without what the contract's error adds": {
    ok: false,
    code: `export const r = fail(renameConfigurationRoute, {
      status: 409, reason: "Conflict", message: "m",
    });`,
  },
  "client sending the contract's input and reading its response": {
    ok: true,
    code: `export async function f(): Promise<string> {
      await callApi(rememberContextRoute, { input: { context: "ctx" } });
      await callApi(renameConfigurationRoute, {
        params: { resource: "validatingwebhookconfigurations", name: "a" },
        input: { newName: "b", resourceVersion: "1" },
      });
      const s: SessionInfo = await callApi(sessionRoute);
      return s.username;
    }`,
  },
  "client sending a body of another shape": {
    ok: false,
    code: `export const p = callApi(rememberContextRoute, { input: { name: "ctx" } });`,
  },
  "client sending a field of another type": {
    ok: false,
    code: `export const p = callApi(dryRunRoute, {
      input: {
        operation: "PATCH", group: "", version: "v1", resource: "pods", subresource: "",
        namespace: "default", name: "p", object: null,
      },
    });`,
  },
  "client leaving out the route's input": {
    ok: false,
    code: `export const p = callApi(rememberContextRoute);`,
  },
  "client leaving out a path segment": {
    ok: false,
    code: `export const p = callApi(renameConfigurationRoute, {
      params: { resource: "validatingwebhookconfigurations" },
      input: { newName: "b", resourceVersion: "1" },
    });`,
  },
  "client reading the answer as another type": {
    ok: false,
    code: `export async function f(): Promise<void> {
      const s: SessionInfo = await callApi(overviewRoute);
      void s;
    }`,
  },
};

function fileOf(name: string): string {
  return path.join(ROOT, "lib", "api", `__fixture_${name.replace(/\W+/g, "_")}.ts`);
}

/** The compiler's errors for each fixture, compiled as part of the project (its tsconfig). */
function compile(): Map<string, string[]> {
  const configPath = path.join(ROOT, "tsconfig.json");
  const config = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!config) throw new Error("tsconfig.json unreadable");
  const options = { ...config.options, incremental: false, noEmit: true };
  const virtual = new Map(
    Object.entries(FIXTURES).map(([name, f]) => [fileOf(name), `${HEAD}\n${f.code}\n`]),
  );
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, onError, create) => {
    const text = virtual.get(path.resolve(file));
    return text !== undefined
      ? ts.createSourceFile(file, text, lang, true)
      : getSourceFile(file, lang, onError, create);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => virtual.has(path.resolve(file)) || fileExists(file);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => virtual.get(path.resolve(file)) ?? readFile(file);
  const program = ts.createProgram([...virtual.keys()], options, host);
  const out = new Map<string, string[]>();
  for (const [name] of Object.entries(FIXTURES)) {
    const sf = program.getSourceFile(fileOf(name));
    if (!sf) throw new Error(`fixture ${name} not compiled`);
    out.set(
      name,
      [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].map((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, "\n"),
      ),
    );
  }
  return out;
}

describe("a handler and its client cannot disagree on a shape", () => {
  // One program for every fixture: the compiler reads the project's types once.
  let results: Map<string, string[]> | undefined;
  const errorsOf = (name: string) => {
    results ??= compile();
    return results.get(name) ?? [];
  };

  it.each(Object.entries(FIXTURES))(
    "%s",
    (name, f) => {
      const errors = errorsOf(name);
      if (f.ok) expect(errors).toEqual([]);
      else {
        expect(errors.length, "the compiler must refuse it").toBeGreaterThan(0);
        // Refused for its shape, not for anything else (a path that does not resolve, a typo).
        for (const e of errors) {
          expect(e).toMatch(
            /not assignable|does not exist in type|is missing|Expected \d+ arguments?, but got/,
          );
        }
      }
    },
    180_000,
  );
});
