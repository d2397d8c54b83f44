/** Kept cases as one test file to download (the test file format's YAML). Pure. */
import { serializeTestFile, type TestCase } from "@/lib/admission/testing/format";

/**
 * One AdmissionTestSuite of the cases; a name met twice gets ` (2)`, ` (3)`… (a file may not
 * hold two cases of one name).
 */
export function suiteText(cases: readonly TestCase[], suiteName: string): string {
  const taken = new Set<string>();
  const named = cases.map((c) => {
    let name = c.name;
    for (let n = 2; taken.has(name); n++) name = `${c.name} (${n})`;
    taken.add(name);
    return name === c.name ? c : { ...c, name };
  });
  return serializeTestFile(named, { metadata: { name: suiteName } });
}

/** A file name for a suite: `<name>.admission-tests.yaml`, with only safe characters. */
export function suiteFileName(name: string): string {
  return `${name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "cases"}.admission-tests.yaml`;
}
