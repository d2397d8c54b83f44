/**
 * `npm run bench [-- NAME…]`: runs every bench/*.bench.ts (or those whose file or measurement
 * name contains a NAME; options such as `--minutes 30` are left to the benchmarks) one after another
 * and prints one JSON line per measurement:
 * {"bench": NAME, "value": N, "unit": "..."}.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

type Measurement = { bench: string; value: number; unit: string };

// Options (`--minutes 30`) are for the benchmarks themselves; their numbers are not names.
const filters = process.argv.slice(2).filter((a) => !a.startsWith("-") && !/^\d+(\.\d+)?$/.test(a));
const files = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();

let failed = false;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(import.meta.dirname, file)).href)) as {
    run?: () => Promise<Measurement[]>;
    benches?: string[];
  };
  if (typeof mod.run !== "function") continue;
  if (
    filters.length > 0 &&
    !filters.some((f) => file.includes(f) || (mod.benches ?? []).some((b) => b.includes(f)))
  )
    continue;
  try {
    for (const m of await mod.run()) console.log(JSON.stringify(m));
  } catch (e) {
    failed = true;
    console.error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
process.exit(failed ? 1 : 0);
