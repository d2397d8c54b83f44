/**
 * Regenerates lib/admission/pod-security/testdata/standards.json from the Pod Security Standards'
 * own conformance fixtures (k8s.io/pod-security-admission `test/testdata/<level>/<version>/
 * {pass,fail}/*.yaml`, in the Go module cache once the control plane is built): every distinct pod
 * once, and for each level and version which pods pass and which fail.
 *   npx tsx scripts/pod-security-fixtures.ts [GOMODCACHE]
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

const modcache =
  process.argv[2] ?? execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
const mods = path.join(modcache, "k8s.io");
const dir = readdirSync(mods)
  .filter((d) => d.startsWith("pod-security-admission@"))
  .sort()
  .pop();
if (!dir) throw new Error(`no k8s.io/pod-security-admission in ${mods}`);
const root = path.join(mods, dir, "test", "testdata");
const docs: unknown[] = [];
const byText = new Map<string, number>();
/** `level/version` → the pods that pass and those that fail. */
const cases: Record<string, { pass: number[]; fail: number[] }> = {};
for (const level of ["baseline", "restricted"])
  for (const version of readdirSync(path.join(root, level)).sort())
    for (const verdict of ["pass", "fail"] as const) {
      const d = path.join(root, level, version, verdict);
      for (const f of readdirSync(d).sort()) {
        const text = readFileSync(path.join(d, f), "utf8");
        let i = byText.get(text);
        if (i === undefined) {
          i = docs.push(parse(text)) - 1;
          byText.set(text, i);
        }
        (cases[`${level}/${version}`] ??= { pass: [], fail: [] })[verdict].push(i);
      }
    }
writeFileSync(
  path.join(
    import.meta.dirname,
    "..",
    "lib",
    "admission",
    "pod-security",
    "testdata",
    "standards.json",
  ),
  JSON.stringify({ source: dir, docs, cases }) + "\n",
);
console.log(`${dir}: ${docs.length} pods, ${Object.keys(cases).length} levels and versions`);
