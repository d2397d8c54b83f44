import { describe, expect, it } from "vitest";
import { FightDetector } from "./fights";
import type { ManagedFieldsEntry, ManagedObject } from "./provenance";

const HOOK = 'k:{"name":"a.guard.io"}';

function entry(manager: string, time: string, fields: Record<string, unknown>): ManagedFieldsEntry {
  return {
    manager,
    operation: "Update",
    time,
    fieldsType: "FieldsV1",
    fieldsV1: { "f:webhooks": { [HOOK]: fields } },
  };
}

const BASE = {
  ".": {},
  "f:name": {},
  "f:failurePolicy": {},
  "f:clientConfig": { "f:url": {} },
};

/** The configuration after `writer` set timeoutSeconds to `timeout` (owning it alone). */
function version(
  writer: string,
  timeout: number,
  second: number,
  extra: ManagedFieldsEntry[] = [],
): ManagedObject {
  const t = `2026-01-01T00:00:${String(second).padStart(2, "0")}Z`;
  return {
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "guard",
      managedFields: [
        entry(
          "helm",
          "2026-01-01T00:00:00Z",
          writer === "helm" ? { ...BASE, "f:timeoutSeconds": {} } : BASE,
        ),
        ...(writer === "helm" ? [] : [entry(writer, t, { "f:timeoutSeconds": {} })]),
        ...extra,
      ],
    },
    webhooks: [
      {
        name: "a.guard.io",
        failurePolicy: "Fail",
        clientConfig: { url: "https://x" },
        timeoutSeconds: timeout,
      },
    ],
  };
}

describe("FightDetector", () => {
  it("raises A → B → A on one field, with the managers and times", () => {
    const d = new FightDetector({ windowMs: 60_000 });
    d.observe("ValidatingWebhookConfiguration", version("helm", 10, 0), 1_000);
    d.observe("ValidatingWebhookConfiguration", version("tuner", 5, 1), 2_000);
    expect(d.fights(2_000)).toEqual([]);
    d.observe("ValidatingWebhookConfiguration", version("helm", 10, 2), 3_000);
    expect(d.fights(3_000)).toEqual([]);
    d.observe("ValidatingWebhookConfiguration", version("tuner", 5, 3), 4_000);
    const [fight, ...rest] = d.fights(4_000);
    expect(rest).toEqual([]);
    expect(fight).toMatchObject({
      id: "reconcile-fight",
      kind: "ValidatingWebhookConfiguration",
      name: "guard",
      path: '.webhooks[name="a.guard.io"].timeoutSeconds',
      managers: ["tuner", "helm"],
      changes: [
        { manager: "tuner", at: 2_000 },
        { manager: "helm", at: 3_000 },
        { manager: "tuner", at: 4_000 },
      ],
    });
  });

  it("does not count one change by each, changes outside the window, or a rewrite to the same value", () => {
    const d = new FightDetector({ windowMs: 1_500 });
    d.observe("V", version("helm", 10, 0), 0);
    d.observe("V", version("tuner", 5, 1), 1_000);
    // Same value written again by the other manager: no change of the field.
    d.observe("V", version("helm", 5, 2), 2_000);
    d.observe("V", version("helm", 10, 3), 5_000);
    d.observe("V", version("tuner", 5, 4), 9_000);
    expect(d.fights(9_000)).toEqual([]);
  });

  it("forgets a fight once no change came for the retention", () => {
    const d = new FightDetector({ windowMs: 60_000, retainMs: 10_000 });
    d.observe("V", version("helm", 10, 0), 0);
    d.observe("V", version("tuner", 5, 1), 1_000);
    d.observe("V", version("helm", 10, 2), 2_000);
    d.observe("V", version("tuner", 5, 3), 3_000);
    expect(d.fights(3_000)).toHaveLength(1);
    expect(d.fights(20_000)).toEqual([]);
  });

  it("starts over after the object is deleted", () => {
    const d = new FightDetector();
    d.observe("V", version("helm", 10, 0), 0);
    d.observe("V", version("tuner", 5, 1), 1_000);
    d.forget("V", "guard", 1_500);
    d.observe("V", version("helm", 10, 2), 2_000);
    d.observe("V", version("tuner", 5, 3), 3_000);
    expect(d.fights(3_000)).toEqual([]);
  });

  it("tells an object deleted and created again within the window, with who created it", () => {
    const d = new FightDetector({ windowMs: 5_000, retainMs: 60_000 });
    d.observe("V", version("helm", 10, 0), 0);
    d.forget("V", "guard", 1_000);
    d.observe("V", version("helm", 10, 2), 2_000);
    // A deletion long before the creation is not a re-creation.
    d.forget("V", "guard", 3_000);
    d.observe("V", version("helm", 10, 4), 30_000);
    expect(d.recreations(30_000)).toEqual([
      { kind: "V", name: "guard", cycles: [{ deletedAt: 1_000, createdAt: 2_000 }], by: "helm" },
    ]);
    expect(d.recreations(100_000)).toEqual([]);
  });
});
