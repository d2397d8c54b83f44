import { mkdtempSync, rmSync, writeFileSync, renameSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ManifestWatcher,
  parseManifestDirList,
  readManifestDir,
  type ManifestSetState,
} from "./admission-manifests";

const vwc = (name: string) =>
  JSON.stringify({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: "v.example.com",
        clientConfig: { url: "https://127.0.0.1:1/v" },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  });

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "portcullis-manifests-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Writes a file as a whole (rename), as an operator's tooling should. */
function put(dir: string, name: string, text: string): void {
  const t = path.join(dir, `.${name}.tmp`);
  writeFileSync(t, text);
  renameSync(t, path.join(dir, name));
}

/** Resolves with the first state `pred` accepts (the current one, or a later one). */
function stateWhere(
  w: ManifestWatcher,
  pred: (s: ManifestSetState) => boolean,
): Promise<ManifestSetState> {
  return new Promise((resolve) => {
    if (pred(w.state())) return resolve(w.state());
    const off = w.subscribe((s) => {
      if (!pred(s)) return;
      off();
      resolve(s);
    });
  });
}

describe("manifest directories", () => {
  it("parses DIR and Plugin=DIR entries", () => {
    expect(
      parseManifestDirList(`/a${path.delimiter}ValidatingAdmissionPolicy=/b${path.delimiter}`),
    ).toEqual([{ dir: "/a" }, { dir: "/b", plugin: "ValidatingAdmissionPolicy" }]);
  });

  it("infers the plugin from the kinds and hashes the set as the apiserver does", () => {
    const d = tmp();
    put(d, "a.yaml", vwc("a.static.k8s.io"));
    put(d, "notes.txt", "ignored");
    const s = readManifestDir({ dir: d });
    expect(s.plugin).toBe("ValidatingAdmissionWebhook");
    expect(s.objects.map((o) => o.name)).toEqual(["a.static.k8s.io"]);
    expect(s.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(s.error).toBeUndefined();
  });

  it("re-reads on change, and a broken set keeps the previous one with its error", async () => {
    const d = tmp();
    put(d, "a.yaml", vwc("a.static.k8s.io"));
    const w = new ManifestWatcher([{ dir: d }]);
    try {
      const first = w.state().dirs[0];
      put(d, "b.yaml", vwc("b.static.k8s.io"));
      const two = await stateWhere(w, (s) => s.dirs[0]?.objects.length === 2);
      expect(two.dirs[0]?.hash).not.toBe(first?.hash);

      put(d, "c.yaml", vwc("not-static"));
      const broken = await stateWhere(w, (s) => s.dirs[0]?.error !== undefined);
      expect(broken.dirs[0]?.error).toBe(
        `error loading ${path.join(d, "c.yaml")}: "not-static" in file "${path.join(d, "c.yaml")}" must have a name ending with ".static.k8s.io"`,
      );
      expect(broken.dirs[0]?.objects.map((o) => o.name)).toEqual([
        "a.static.k8s.io",
        "b.static.k8s.io",
      ]);
      expect(broken.dirs[0]?.hash).toBe(two.dirs[0]?.hash);
      expect(w.objects().origins["ValidatingWebhookConfiguration/b.static.k8s.io"]).toEqual({
        kind: "manifest",
        plugin: "ValidatingAdmissionWebhook",
        file: path.join(d, "b.yaml"),
        dir: d,
      });

      rmSync(path.join(d, "c.yaml"));
      const fixed = await stateWhere(w, (s) => s.dirs[0]?.error === undefined);
      expect(fixed.dirs[0]?.objects).toHaveLength(2);
    } finally {
      w.close();
    }
  });

  it("an unreadable directory is an error, not a crash", () => {
    const s = readManifestDir({
      dir: "/nonexistent/portcullis",
      plugin: "MutatingAdmissionPolicy",
    });
    expect(s.error).toMatch(/^failed to read manifest directory "\/nonexistent\/portcullis": /);
    expect(s.objects).toEqual([]);
  });
});
