import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "./errors";
import { MAX_INPUT_BYTES, readStdin, readText } from "./input";

const dir = mkdtempSync(path.join(tmpdir(), "portcullis-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the size of one input", () => {
  it("refuses a file over the limit without reading it", () => {
    const file = path.join(dir, "huge.yaml");
    writeFileSync(file, "");
    // Sparse: a file this size costs no disk and would take long to parse if it were read.
    truncateSync(file, MAX_INPUT_BYTES + 1);
    expect(() => readText(file)).toThrow(InputError);
    expect(() => readText(file)).toThrow(/huge\.yaml is larger than 64 MiB/);
  });

  it("reads a file at the limit's side", () => {
    const file = path.join(dir, "small.yaml");
    writeFileSync(file, "a: 1\n---\nb: 2\n");
    expect(readText(file).text).toBe("a: 1\n---\nb: 2\n");
  });

  it("stops reading stdin once it passes the limit", async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += chunk.length;
        this.push(chunk);
      },
    });
    await expect(readStdin(endless)).rejects.toThrow(/<stdin> is larger than 64 MiB/);
    // It did not go on reading far past the limit.
    expect(sent).toBeLessThan(MAX_INPUT_BYTES + 8 * chunk.length);
  });
});
