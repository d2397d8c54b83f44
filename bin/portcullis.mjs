#!/usr/bin/env node
// The `portcullis` command: runs the built CLI (dist/cli/portcullis.mjs), or says how to build it.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const bundle = fileURLToPath(new URL("../dist/cli/portcullis.mjs", import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(
    `portcullis: the command line is not built (${bundle} is missing).\n` +
      "Run `npm run build:cli` in the Portcullis checkout, then try again.\n",
  );
  process.exit(2);
}
await import(pathToFileURL(bundle).href);
