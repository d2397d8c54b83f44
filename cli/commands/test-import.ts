/**
 * `portcullis test import --from kat|kaptest PATH [--out FILE]`: another tool's tests written as
 * an AdmissionTestSuite (lib/admission/testing/import.ts), its configuration named relative to
 * where the suite is written, and what did not map.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serializeTestFile } from "@/lib/admission/testing/format";
import { importKaptest, importKat, type ImportResult } from "@/lib/admission/testing/import";
import type { TestImportCommand } from "../args";
import { InputError } from "../errors";

function readUnder(root: string): (file: string) => string {
  return (file) => {
    const p = path.resolve(root, file);
    try {
      return readFileSync(p, "utf8");
    } catch (e) {
      throw new InputError(`cannot read ${p}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

function listFiles(root: string, dir = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir)).sort()) {
    const rel = dir === "" ? name : `${dir}/${name}`;
    if (statSync(path.join(root, rel)).isDirectory()) {
      if (rel === "tests" || dir === "tests") out.push(...listFiles(root, rel));
    } else out.push(rel);
  }
  return out;
}

/** Runs the import: the suite's text (written to --out when given) and what did not map. */
export async function runTestImport(
  cmd: TestImportCommand,
): Promise<{ text: string; unmapped: string[]; cases: number }> {
  let root: string;
  let result: ImportResult;
  try {
    if (cmd.from === "kat") {
      // The policy directory, or its tests/ directory.
      root = path.resolve(cmd.input);
      if (path.basename(root) === "tests") root = path.dirname(root);
      result = importKat(listFiles(root), readUnder(root));
    } else {
      const manifest = path.resolve(cmd.input);
      root = path.dirname(manifest);
      result = importKaptest(readFileSync(manifest, "utf8"), readUnder(root));
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${cmd.input}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const outDir = cmd.out === undefined ? process.cwd() : path.dirname(path.resolve(cmd.out));
  const configuration = result.configuration.map((f) =>
    path.relative(outDir, path.resolve(root, f)).split(path.sep).join("/"),
  );
  const text = serializeTestFile(result.cases, {
    metadata: {
      name: path.basename(root),
      description: `imported from ${cmd.from} ${cmd.input}`,
    },
    configuration,
    ...(result.configurationObjects.length > 0
      ? { configurationObjects: result.configurationObjects }
      : {}),
  });
  if (cmd.out !== undefined) writeFileSync(cmd.out, text);
  return { text, unmapped: result.unmapped, cases: result.cases.length };
}
