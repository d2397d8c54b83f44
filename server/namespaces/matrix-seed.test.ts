/** The seed's collections are serialised once per context and state of the collections. */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "@/server/kube/watch-hub";
import { matrixSeedCollections, matrixSeedCollectionsJson, type MatrixLists } from "./matrix-seed";

function lists(context: string, configRv: string, nsRv: string, nsLabel = "0"): MatrixLists {
  return {
    context,
    overview: {} as MatrixLists["overview"],
    collections: {
      "admissionregistration.k8s.io/v1/validatingwebhookconfigurations": {
        resourceVersion: configRv,
        items: [
          {
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "ValidatingWebhookConfiguration",
            metadata: { name: "c", managedFields: [{ manager: "kubectl" }] },
            webhooks: [],
          } as KubeObject,
        ],
      },
      "core/v1/namespaces": {
        resourceVersion: nsRv,
        items: [{ metadata: { name: "sys", labels: { runlevel: nsLabel } } } as KubeObject],
      },
    },
  };
}

describe("matrixSeedCollectionsJson", () => {
  it("is the seed's collections as JSON", () => {
    const l = lists("a", "1", "1");
    const json = matrixSeedCollectionsJson(l);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(matrixSeedCollections(l))));
    expect(json).not.toContain("managedFields");
  });

  it("is reused while the resourceVersions stay, and made again when one changes", () => {
    const first = matrixSeedCollectionsJson(lists("b", "1", "1", "0"));
    // Same versions: the string already sent (the changed label is not looked at).
    expect(matrixSeedCollectionsJson(lists("b", "1", "1", "1"))).toBe(first);
    const changed = matrixSeedCollectionsJson(lists("b", "1", "2", "1"));
    expect(changed).not.toBe(first);
    expect(changed).toContain('"runlevel":"1"');
  });

  it("is kept per context", () => {
    const c = matrixSeedCollectionsJson(lists("c", "5", "5", "0"));
    const d = matrixSeedCollectionsJson(lists("d", "5", "5", "1"));
    expect(c).toContain('"runlevel":"0"');
    expect(d).toContain('"runlevel":"1"');
    expect(matrixSeedCollectionsJson(lists("c", "5", "5", "1"))).toBe(c);
  });
});
