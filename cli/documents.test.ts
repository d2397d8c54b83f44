/**
 * Reading manifests as kubectl hands them to the apiserver: bytes go-yaml refuses, files longer
 * than one request body, and typed lists read straight from the API.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { ValidateReport } from "./commands/validate";
import {
  aliasNodesOf,
  EXCESSIVE_ALIASING,
  MAX_ALIAS_NODES_PER_INPUT,
  readDocuments,
} from "./documents";
import { sourceFromBytes, yamlReaderError } from "./input";
import { main } from "./main";

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-cli-docs-"));
});

const hook = (name: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
  - name: a.example.com
    clientConfig: {url: "https://example.com/x"}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
    sideEffects: None
    admissionReviewVersions: [v1]
`;

async function validate(name: string, bytes: Buffer | string): Promise<ValidateReport> {
  const p = path.join(dir, name);
  writeFileSync(p, bytes);
  let out = "";
  let err = "";
  const code = await main(["validate", p, "-o", "json"], {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
  });
  expect(err).toBe("");
  const r = JSON.parse(out) as ValidateReport;
  expect(code).toBe(r.ok ? 0 : 1);
  return r;
}

describe("bytes go-yaml refuses (kubectl never sends the document)", () => {
  test("go-yaml's reader messages", () => {
    const at = (...b: number[]) => yamlReaderError(Uint8Array.from(b));
    expect(at(0x61, 0xe9, 0x0a, 0x62)).toEqual({
      offset: 2,
      message: "yaml: invalid trailing UTF-8 octet",
    });
    expect(at(0x80)).toEqual({ offset: 0, message: "yaml: invalid leading UTF-8 octet" });
    expect(at(0x61, 0xc3)).toEqual({
      offset: 1,
      message: "yaml: incomplete UTF-8 octet sequence",
    });
    expect(at(0xc0, 0x80)?.message).toBe("yaml: invalid length of a UTF-8 sequence");
    expect(at(0xed, 0xa0, 0x80)?.message).toBe("yaml: invalid Unicode character");
    expect(at(0x07)?.message).toBe("yaml: control characters are not allowed");
    expect(at(0x7f)?.message).toBe("yaml: control characters are not allowed");
    expect(at(0x00)?.message).toBe("yaml: control characters are not allowed");
    // A byte order mark, tabs, CRLF, é and an emoji are all fine.
    expect(yamlReaderError(Buffer.from("\ufeffa:\tb\r\nc: é 🙂\n"))).toBeUndefined();
  });

  test("a Latin-1 byte in a comment makes the document a YAML error, not a valid one", async () => {
    const text = Buffer.concat([Buffer.from("# caf"), Buffer.from([0xe9]), Buffer.from("\n")]);
    const r = await validate("latin1.yaml", Buffer.concat([text, Buffer.from(hook("demo"))]));
    expect(r.ok).toBe(false);
    expect(r.documents).toHaveLength(1);
    expect(r.documents[0]).toMatchObject({ outcome: "yaml-error" });
    expect(r.documents[0]?.issues[0]).toMatchObject({
      message: "yaml: invalid trailing UTF-8 octet",
      source: "yaml",
      line: 1,
      column: 7,
    });
  });

  test("a control character refuses only the document it is in", async () => {
    const text = `${hook("one")}---\n${hook("two").replace("name: two", 'name: two\n  labels: {a: "x\u0007"}')}---\n${hook("three")}`;
    const r = await validate("bell.yaml", text);
    expect(r.documents.map((d) => d.outcome)).toEqual(["accepted", "yaml-error", "accepted"]);
    expect(r.documents[1]?.issues[0]).toMatchObject({
      message: "yaml: control characters are not allowed",
      line: 16,
    });
  });

  test("a JSON stream is decoded as JSON, as kubectl does", () => {
    const s = sourceFromBytes("x.json", Buffer.from('{"a": "\u007f"}'));
    expect(s.readerError).toBeUndefined();
    const y = sourceFromBytes("x.yaml", Buffer.from('a: "\u007f"'));
    expect(y.readerError).toEqual({
      index: 4,
      message: "yaml: control characters are not allowed",
    });
  });
});

describe("files longer than one request", () => {
  test("a multi-document file over 3 MiB is judged document by document", async () => {
    // Four documents of about 1 MiB each (a long comment), the third one invalid.
    const pad = `# ${"x".repeat(1024 * 1024)}\n`;
    const docs = ["a", "b", "Bad_Name", "d"].map((n) => pad + hook(n));
    const text = docs.join("---\n");
    expect(Buffer.byteLength(text)).toBeGreaterThan(3 * 1024 * 1024);
    const r = await validate("many.yaml", text);
    expect(r.summary).toMatchObject({ documents: 4, accepted: 3, invalid: 1 });
    const bad = r.documents[2];
    expect(bad).toMatchObject({ name: "Bad_Name", outcome: "invalid", document: 2 });
    // Lines count in the whole file: 11 lines per document and its `---`.
    expect(bad?.issues[0]?.line).toBe(2 * 12 + 5);
  });

  test("one document over 3 MiB in a long file is still too large on its own", () => {
    const big = hook("big").replace(
      "metadata:\n",
      `metadata:\n  annotations: {a: "${"x".repeat(3 * 1024 * 1024)}"}\n`,
    );
    const text = `${hook("small")}--- # the next one\n${big}`;
    const read = readDocuments([{ name: "f.yaml", text }]);
    expect(read.objects).toHaveLength(1);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]?.message).toMatch(/^Request entity too large/);
    expect(read.problems[0]?.origin).toMatchObject({ document: 1, line: 11 });
  });
});

describe("lists", () => {
  test("a typed list from the API (items without apiVersion and kind) is read as kubectl reads it", async () => {
    const item = JSON.parse(
      JSON.stringify({
        metadata: { name: "demo", resourceVersion: "1" },
        webhooks: [
          {
            name: "a.example.com",
            clientConfig: { url: "https://example.com/x" },
            rules: [
              { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
            ],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      }),
    ) as Record<string, unknown>;
    const list = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfigurationList",
      metadata: { resourceVersion: "9" },
      items: [item, { ...item, metadata: { name: "Bad_Name" } }],
    };
    const r = await validate("list.json", JSON.stringify(list, null, 2));
    expect(r.documents.map((d) => [d.kind, d.name, d.outcome, d.item])).toEqual([
      ["ValidatingWebhookConfiguration", "demo", "accepted", 0],
      ["ValidatingWebhookConfiguration", "Bad_Name", "invalid", 1],
    ]);
  });

  test("a list with `items: null` is an empty list, not an object to skip", () => {
    const text = "apiVersion: v1\nkind: List\nitems: null\n";
    const read = readDocuments([{ name: "l.yaml", text }]);
    expect(read.objects).toEqual([]);
    expect(read.problems).toEqual([]);
  });

  test("an item with its own apiVersion and kind keeps them", () => {
    const text = JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } }],
    });
    const read = readDocuments([{ name: "l.json", text }]);
    expect(read.objects.map((o) => o.value)).toEqual([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } },
    ]);
  });
});

describe("text output from hostile manifests", () => {
  test("escape sequences, carriage returns and bidi overrides are shown, not acted on", async () => {
    const p = path.join(dir, "evil\u001b[2J.yaml");
    writeFileSync(
      p,
      'apiVersion: v1\nkind: "Evil\\e]0;PWNED\\a\\e[2J\\r1 document: 1 valid\\u202e"\nmetadata: {name: x}\n',
    );
    let out = "";
    let err = "";
    const io = { stdout: (s: string) => (out += s), stderr: (s: string) => (err += s) };
    expect(await main(["validate", p], io)).toBe(0);
    expect(out).toContain(
      "skipped: Evil\\x1b]0;PWNED\\x07\\x1b[2J\\x0d1 document: 1 valid\\u202e v1",
    );
    expect(out).toContain("evil\\x1b[2J.yaml");
    for (const c of ["\u001b", "\u0007", "\r", "\u202e"]) expect(out).not.toContain(c);
    // A path in an error message too.
    expect(await main(["validate", path.join(dir, "missing\u001b[2J.yaml")], io)).toBe(2);
    expect(err).toContain("missing\\x1b[2J.yaml");
    expect(err).not.toContain("\u001b");
  });
});

describe("historical kinds", () => {
  test("a v1beta1 webhook configuration is checked, with a warning that 1.22+ does not serve it", async () => {
    const r = await validate("beta.yaml", hook("old").replace("/v1\n", "/v1beta1\n"));
    expect(r.ok).toBe(true);
    expect(r.summary).toMatchObject({ accepted: 1, warnings: 1 });
    expect(r.documents[0]?.issues[0]).toMatchObject({
      severity: "warning",
      field: "apiVersion",
      line: 1,
      message: expect.stringMatching(/not served by Kubernetes 1\.22 and later.*404/),
    });
  });

  test("an InitializerConfiguration says the same of 1.14+, a served kind says nothing", async () => {
    const r = await validate(
      "init.yaml",
      `apiVersion: admissionregistration.k8s.io/v1alpha1
kind: InitializerConfiguration
metadata: {name: init}
initializers:
  - name: podimage.example.com
    rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods]}]
---
${hook("current")}`,
    );
    expect(r.documents.map((d) => d.issues.map((i) => i.severity))).toEqual([["warning"], []]);
    expect(r.documents[0]?.issues[0]?.message).toMatch(/not served by Kubernetes 1\.14 and later/);
  });

  test("lint and predict say so in a notice", async () => {
    const p = path.join(dir, "beta-lint.yaml");
    writeFileSync(p, hook("old").replace("/v1\n", "/v1beta1\n") + `---\n${hook("current")}`);
    let out = "";
    const io = { stdout: (s: string) => (out += s), stderr: () => undefined };
    await main(["lint", p, "-o", "json"], io);
    const notices = (JSON.parse(out) as { notices: { at: string; message: string }[] }).notices;
    const unserved = notices.filter((n) => /is not served by Kubernetes/.test(n.message));
    expect(unserved).toEqual([
      {
        at: `${p}:1`,
        message: expect.stringMatching(
          /^admissionregistration\.k8s\.io\/v1beta1 ValidatingWebhookConfiguration old is not served by Kubernetes 1\.22 and later/,
        ),
      },
    ]);
  });
});

describe("alias budget per input, over all its documents", () => {
  // One document reaching 99,114 nodes through aliases (b: 120, c: 1,220, d: 12,220, e: 85,554):
  // just under the reader's per-document budget (100,000), padded to 330 bytes.
  const heavy = (i: number) => {
    const doc = `a${i}: &a [x,x,x,x,x,x,x,x,x,x]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: [*d,*d,*d,*d,*d,*d,*d]
`;
    return `${doc}pad: "${"p".repeat(330 - doc.length - 12)}"\n`;
  };

  test("one heavy document is read, as it always was", () => {
    const read = readDocuments([{ name: "one.yaml", text: heavy(0) }]);
    expect(read.problems).toEqual([]);
    expect(read.objects).toHaveLength(1);
  });

  test("300 of them in 96 KB are refused at once, with the reader's words", async () => {
    const text = Array.from({ length: 300 }, (_, i) => heavy(i)).join("---\n");
    expect(Buffer.byteLength(text)).toBeGreaterThan(96_000);
    const started = performance.now();
    const r = await validate("bomb.yaml", text);
    const took = performance.now() - started;
    expect(r.ok).toBe(false);
    expect(r.documents).toHaveLength(1);
    expect(r.documents[0]?.outcome).toBe("yaml-error");
    expect(r.documents[0]?.issues[0]?.message).toMatch(/excessive aliasing/);
    // On main this took over a minute; the count is one pass over the parsed tree.
    expect(took).toBeLessThan(1000);
  });

  test("two documents are counted together", () => {
    const two = `${heavy(0)}---\n${heavy(1)}`;
    const read = readDocuments([{ name: "two.yaml", text: two }]);
    expect(read.objects).toHaveLength(0);
    expect(read.problems.map((p) => p.message)).toEqual([EXCESSIVE_ALIASING]);
    expect(aliasNodesOf(heavy(0))).toBe(99_114);
    expect(aliasNodesOf(two)).toBeGreaterThan(MAX_ALIAS_NODES_PER_INPUT);
  });

  test("each input has its own budget", () => {
    const read = readDocuments([
      { name: "a.yaml", text: heavy(0) },
      { name: "b.yaml", text: heavy(1) },
    ]);
    expect(read.problems).toEqual([]);
    expect(read.objects).toHaveLength(2);
  });
});
