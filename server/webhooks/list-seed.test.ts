/**
 * The webhook list's seed: its collections serialised once per context and state of the lists,
 * and the first screen cut from the lists the way the browser cuts the whole list.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "@/server/kube/watch-hub";
import type { OverviewData } from "@/lib/api/overview";
import { parseListState } from "@/lib/webhooks/list-filter";
import { FIRST_SCREEN_ROWS, unpackListPreview } from "@/lib/webhooks/list-preview";
import { applyListState } from "@/lib/webhooks/list-filter";
import { hookRows, type ConfigLike } from "@/lib/webhooks/summary";
import { webhookListPreview, webhookSeedCollectionsJson, type WebhookLists } from "./list-seed";

const VALIDATING = "admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MUTATING = "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

/** What discovery says a 1.37 apiserver serves of the two webhook kinds. */
const overview = {
  context: "x",
  server: "https://127.0.0.1:6443",
  version: { major: "1", minor: "37", gitVersion: "v1.37.2" },
  apis: [
    {
      group: "admissionregistration.k8s.io",
      version: "v1",
      resources: [
        { name: "mutatingwebhookconfigurations", kind: "MutatingWebhookConfiguration" },
        { name: "validatingwebhookconfigurations", kind: "ValidatingWebhookConfiguration" },
      ],
    },
  ],
} as unknown as OverviewData;

function config(kind: string, name: string, hooks: number, timeoutSeconds = 5): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name, managedFields: [{ manager: "kubectl" }] },
    webhooks: Array.from({ length: hooks }, (_, h) => ({
      name: `h${h}.${name}.example.com`,
      timeoutSeconds,
      clientConfig: { url: `https://127.0.0.1:9/${h}` },
    })),
  } as KubeObject;
}

function lists(context: string, rv: string, timeoutSeconds = 5): WebhookLists {
  return {
    context,
    overview: { ...overview, context },
    collections: {
      [VALIDATING]: {
        resourceVersion: rv,
        items: Array.from({ length: 10 }, (_, c) =>
          config("ValidatingWebhookConfiguration", `v-${c}`, 10, timeoutSeconds),
        ),
      },
      [MUTATING]: {
        resourceVersion: rv,
        items: [config("MutatingWebhookConfiguration", "m-0", 2, timeoutSeconds)],
      },
    },
  };
}

describe("webhookSeedCollectionsJson", () => {
  it("is the lists' items without managedFields", () => {
    const json = webhookSeedCollectionsJson(lists("a", "1"));
    const parsed = JSON.parse(json) as Record<string, { items: ConfigLike[] }>;
    expect(parsed[VALIDATING]?.items).toHaveLength(10);
    expect(parsed[MUTATING]?.items[0]?.metadata?.name).toBe("m-0");
    expect(json).not.toContain("managedFields");
  });

  it("is reused while the resourceVersions stay, made again when one changes, kept per context", () => {
    const first = webhookSeedCollectionsJson(lists("b", "1", 5));
    expect(webhookSeedCollectionsJson(lists("b", "1", 7))).toBe(first);
    const changed = webhookSeedCollectionsJson(lists("b", "2", 7));
    expect(changed).not.toBe(first);
    expect(changed).toContain('"timeoutSeconds":7');
    const other = webhookSeedCollectionsJson(lists("c", "1", 9));
    expect(other).toContain('"timeoutSeconds":9');
    expect(webhookSeedCollectionsJson(lists("b", "2", 3))).toBe(changed);
  });
});

describe("webhookListPreview", () => {
  it("is the first screen of the list the browser shows for the URL's state", () => {
    const l = lists("d", "1");
    const preview = webhookListPreview(l, { sort: "hook", dir: "desc", q: "v-" });
    expect(preview).toBeDefined();
    const unpacked = unpackListPreview(preview!);
    const all = [
      ...hookRows(l.collections[MUTATING]!.items as ConfigLike[], "mutatingwebhookconfigurations"),
      ...hookRows(
        l.collections[VALIDATING]!.items as ConfigLike[],
        "validatingwebhookconfigurations",
      ),
    ];
    const state = parseListState(new URLSearchParams("sort=hook&dir=desc&q=v-"));
    const whole = applyListState(all, state, {});
    expect(unpacked.rows).toEqual(whole.slice(0, FIRST_SCREEN_ROWS));
    expect(unpacked.shown).toBe(100);
    expect(unpacked.total).toBe(102);
    expect(unpacked.kinds).toEqual([
      ["MutatingWebhookConfiguration", 1],
      ["ValidatingWebhookConfiguration", 10],
    ]);
  });

  it("is reused for the same lists and URL, and cut again when the lists change", () => {
    const a = webhookListPreview(lists("e", "1", 5), {});
    expect(webhookListPreview(lists("e", "1", 5), {})).toBe(a);
    const b = webhookListPreview(lists("e", "2", 8), {});
    expect(b).not.toBe(a);
    expect(unpackListPreview(b!).rows[0]?.timeoutSeconds.value).toBe(8);
  });

  it("is not cut without lists or for states that need the linter's findings", () => {
    expect(webhookListPreview(undefined, {})).toBeUndefined();
    expect(webhookListPreview(lists("f", "1"), { sort: "findings" })).toBeUndefined();
    expect(webhookListPreview(lists("f", "1"), { findings: "any" })).toBeUndefined();
  });
});
