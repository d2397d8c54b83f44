import { describe, expect, it } from "vitest";
import { proposedEditHref, webhookHookHref } from "./links";
import { parseProposedPatch } from "@/lib/webhooks/proposed-patch";
import { applyProposal } from "@/components/editor/apply-proposal";

const fix = {
  description: "fail open",
  target: { kind: "MutatingWebhookConfiguration", name: "hooks", hook: "inject.example.com" },
  jsonPatch: [{ op: "add" as const, path: "/webhooks/1/failurePolicy", value: "Ignore" }],
};

function proposalFrom(href: string) {
  const patch = parseProposedPatch(new URL(href, "http://x").searchParams.get("patch") ?? "");
  if (!patch?.ok) throw new Error("no patch");
  return { ...patch, why: "fail open" };
}

describe("proposedEditHref", () => {
  it("applies to the hook the finding is about", () => {
    const href = proposedEditHref(fix) ?? "";
    expect(href.startsWith("/webhooks/mutatingwebhookconfigurations/hooks/edit?")).toBe(true);
    const stored = { webhooks: [{ name: "gate.example.com" }, { name: "inject.example.com" }] };
    const r = applyProposal(stored, proposalFrom(href));
    expect(r.ok && r.object).toEqual({
      webhooks: [
        { name: "gate.example.com" },
        { name: "inject.example.com", failurePolicy: "Ignore" },
      ],
    });
  });

  it("refuses to apply when another hook now sits at that index, instead of changing it", () => {
    const href = proposedEditHref(fix) ?? "";
    // Reordered since the finding: index 1 is now the security gate.
    const stored = { webhooks: [{ name: "inject.example.com" }, { name: "gate.example.com" }] };
    const r = applyProposal(stored, proposalFrom(href));
    expect(r.ok).toBe(false);
    expect(r.message).toContain('/webhooks/1/name is no longer "inject.example.com"');
    expect(r.message).not.toContain("gate.example.com");
  });
});

describe("webhookHookHref", () => {
  it("names the configuration's kind by whether it mutates, and escapes the names", () => {
    expect(webhookHookHref(true, "c/1", "a.x.io")).toBe(
      "/hooks/MutatingWebhookConfiguration/c%2F1/a.x.io",
    );
    expect(webhookHookHref(false, "c", "b x")).toBe(
      "/hooks/ValidatingWebhookConfiguration/c/b%20x",
    );
  });
});
