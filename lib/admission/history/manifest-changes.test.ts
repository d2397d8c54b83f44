import { describe, expect, it } from "vitest";
import type { ChangeDraft } from "./changes";
import {
  manifestChanges,
  manifestUid,
  type ManifestEntry,
  type ManifestHead,
} from "./manifest-changes";

const entry = (name: string, timeoutSeconds: number, file = "/m/a.yaml"): ManifestEntry => ({
  kind: "ValidatingWebhookConfiguration",
  name,
  file,
  object: {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [{ name: "a.static.example.com", timeoutSeconds }],
  },
});

/** The heads a store would hold after `drafts` were recorded with ids from `firstId` on. */
function stored(
  drafts: readonly ChangeDraft[],
  firstId: number,
  into = new Map<string, ManifestHead>(),
) {
  drafts.forEach((d, i) =>
    into.set(d.uid, {
      uid: d.uid,
      id: firstId + i,
      versionKey: d.version,
      file: d.actor?.user.replace(/^manifest /, ""),
    }),
  );
  return into;
}

describe("manifestChanges", () => {
  it("records a static object's appearance, change and disappearance, attributed to its file", () => {
    const created = manifestChanges([entry("x.static.k8s.io", 5)], new Map(), 1);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      kind: "ValidatingWebhookConfiguration",
      name: "x.static.k8s.io",
      uid: manifestUid("ValidatingWebhookConfiguration", "x.static.k8s.io"),
      operation: "create",
      source: "manifest",
      actor: { user: "manifest /m/a.yaml" },
    });
    expect(created[0]?.version).toMatch(/^sha256:[0-9a-f]{64}:0$/);
    const heads = stored(created, 7);

    // Read again unchanged (a restart, another directory's event): nothing.
    expect(manifestChanges([entry("x.static.k8s.io", 5)], heads, 2)).toEqual([]);
    // Key order in the file is not content.
    const reordered = entry("x.static.k8s.io", 5);
    reordered.object = {
      webhooks: reordered.object.webhooks,
      metadata: reordered.object.metadata,
      kind: reordered.object.kind,
      apiVersion: reordered.object.apiVersion,
    };
    expect(manifestChanges([reordered], heads, 2)).toEqual([]);

    const updated = manifestChanges([entry("x.static.k8s.io", 9)], heads, 3);
    expect(updated.map((d) => [d.operation, d.version.endsWith(":7")])).toEqual([["update", true]]);
    stored(updated, 8, heads);

    const gone = manifestChanges([], heads, 4);
    expect(gone).toEqual([
      expect.objectContaining({
        operation: "delete",
        version: "delete:8",
        name: "x.static.k8s.io",
        actor: expect.objectContaining({ user: "manifest /m/a.yaml" }),
      }),
    ]);
    expect(gone[0]?.object).toBeUndefined();
    stored(gone, 9, heads);
    expect(manifestChanges([], heads, 5)).toEqual([]);
  });

  it("keys changes so that different objects never meet and a content seen before is a new change", () => {
    // Two different objects with the same (empty) content: two keys.
    const a = { ...entry("a.static.k8s.io", 5), object: {} };
    const b = { ...entry("b.static.k8s.io", 5), object: {} };
    const two = manifestChanges([a, b], new Map(), 1);
    expect(new Set(two.map((d) => `${d.uid}\n${d.version}`)).size).toBe(2);

    // A file changed back to what it held before: a third change, on a key of its own.
    const heads = stored(manifestChanges([entry("x.static.k8s.io", 5)], new Map(), 1), 1);
    const v2 = manifestChanges([entry("x.static.k8s.io", 6)], heads, 2);
    stored(v2, 2, heads);
    const back = manifestChanges([entry("x.static.k8s.io", 5)], heads, 3);
    expect(back).toHaveLength(1);
    expect(back[0]?.version).not.toBe(heads.get(back[0]?.uid ?? "")?.versionKey);
    // Deleted, then back with the same content: a creation again.
    stored(manifestChanges([], heads, 4), 3, heads);
    expect(
      manifestChanges([entry("x.static.k8s.io", 6)], heads, 5).map((d) => d.operation),
    ).toEqual(["create"]);
  });

  it("leaves out kinds the history does not keep", () => {
    expect(manifestChanges([{ ...entry("p", 1), kind: "Pod" }], new Map(), 1)).toEqual([]);
  });
});
