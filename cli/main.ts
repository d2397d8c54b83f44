/**
 * The `portcullis` command: parse, run one command, print text or JSON, exit 0/1/2. Built to
 * dist/cli/portcullis.mjs (npm run build:cli) and started by bin/portcullis.mjs.
 */
import { version } from "../package.json";
import { parseCommandLine, type Command } from "./args";
import { EXIT, InputError, UsageError } from "./errors";
import { RequestSpecError } from "@/lib/admission/report/resources";
import { helpText } from "./output/help";

/** Where output goes; tests pass buffers. */
export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) + "\n";

/**
 * Text for a terminal or a CI log: names, kinds and messages come from the manifests (or the
 * cluster), so control characters in them (escape sequences that clear the screen, retitle the
 * window or hide text, a carriage return that overwrites a line, bidirectional overrides that
 * reorder it) are shown as escapes instead of acting. Newlines and tabs are the output's own.
 */
function printable(s: string): string {
  let out = "";
  for (const ch of s) {
    const n = ch.codePointAt(0) ?? 0;
    const control =
      (n < 0x20 && n !== 0x0a && n !== 0x09) ||
      (n >= 0x7f && n <= 0x9f) ||
      (n >= 0x202a && n <= 0x202e) ||
      (n >= 0x2066 && n <= 0x2069);
    if (!control) out += ch;
    else out += n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16)}`;
  }
  return out;
}

async function execute(cmd: Command, io: Io): Promise<number> {
  switch (cmd.command) {
    case "help":
      io.stdout(helpText(cmd.topic));
      return EXIT.ok;
    case "version":
      io.stdout(`portcullis ${version}\n`);
      return EXIT.ok;
    case "validate": {
      const { runValidate } = await import("./commands/validate");
      const { formatValidateText } = await import("./output/validate");
      const r = await runValidate(cmd);
      io.stdout(cmd.output === "json" ? json(r) : printable(formatValidateText(r)));
      return r.ok ? EXIT.ok : EXIT.findings;
    }
    case "lint": {
      const { runLint } = await import("./commands/lint");
      const { formatLintText } = await import("./output/lint");
      const r = await runLint(cmd);
      io.stdout(cmd.output === "json" ? json(r) : printable(formatLintText(r)));
      return r.ok ? EXIT.ok : EXIT.findings;
    }
    case "predict": {
      const { runPredict } = await import("./commands/predict");
      const { formatPredictText } = await import("./output/predict");
      const r = await runPredict(cmd);
      io.stdout(cmd.output === "json" ? json(r) : printable(formatPredictText(r)));
      return r.admitted ? EXIT.ok : EXIT.findings;
    }
    case "test": {
      const { runTest } = await import("./commands/test");
      const { formatTestText, junitXml } = await import("./output/test");
      const r = await runTest(cmd);
      if (cmd.junit !== undefined) {
        const { writeFileSync } = await import("node:fs");
        writeFileSync(cmd.junit, junitXml(r));
      }
      io.stdout(cmd.output === "json" ? json(r) : printable(formatTestText(r)));
      return r.ok ? EXIT.ok : EXIT.findings;
    }
    case "test-import": {
      const { runTestImport } = await import("./commands/test-import");
      const r = await runTestImport(cmd);
      if (cmd.out === undefined) io.stdout(r.text);
      if (cmd.output === "json") io.stderr(json({ unmapped: r.unmapped, cases: r.cases }));
      else for (const u of r.unmapped) io.stderr(printable(`portcullis: not mapped: ${u}\n`));
      return EXIT.ok;
    }
  }
}

/** Runs one invocation; never throws. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  let cmd: Command;
  try {
    cmd = parseCommandLine(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const topic =
      argv[0] === "validate" || argv[0] === "lint" || argv[0] === "predict" || argv[0] === "test"
        ? argv[0]
        : "";
    io.stderr(
      `portcullis: ${printable(e.message)}\nRun 'portcullis help${topic ? ` ${topic}` : ""}' for usage.\n`,
    );
    return EXIT.usage;
  }
  try {
    return await execute(cmd, io);
  } catch (e) {
    if (e instanceof UsageError || e instanceof InputError || e instanceof RequestSpecError) {
      io.stderr(`portcullis: ${printable(e.message)}\n`);
      return EXIT.usage;
    }
    // A bug: say so plainly, with the stack for the report.
    io.stderr(
      `portcullis: internal error: ${printable(e instanceof Error ? (e.stack ?? e.message) : String(e))}\n`,
    );
    return EXIT.usage;
  }
}
