/**
 * `npm run bench -- soak [--minutes N] [--full] …`: the soak and fault harness (bench/soak.ts;
 * docs/testing.md, "Soak"). Its figures are the measurements; a failed assertion fails the run.
 */
import { parseSoakOptions, runSoak } from "./soak";

export const benches = ["soak"];

export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const { figures, violations } = await runSoak(parseSoakOptions(process.argv.slice(2)));
  if (violations.length > 0) {
    for (const f of figures) console.log(JSON.stringify(f));
    throw new Error(`soak: ${violations.length} assertions failed: ${violations.join("; ")}`);
  }
  return figures;
}
