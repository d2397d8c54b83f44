import { beforeEach, expect, it } from "vitest";
import type { TestCase } from "@/lib/admission/testing/format";
import { describeStores, parsed, T0 } from "@/server/decisions/store/test-support";
import { recentRequests } from "./replay";
import { CaseStore, CASES_TABLE } from "./case-store";

const podCase = (name: string): TestCase => ({
  name,
  source: { from: "decision", ref: "a1", at: "2026-11-23T10:00:00.000Z" },
  request: {
    operation: "CREATE",
    resource: "/v1/pods",
    namespace: "team-a",
    name: "web-1",
    object: { apiVersion: "v1", kind: "Pod", metadata: { name: "web-1", labels: { app: "web" } } },
    userInfo: { username: "alice", groups: ["devs"] },
    namespaceLabels: { env: "dev" },
  },
  expect: {
    calls: ["ValidatingWebhookConfiguration/cfg/pods.example.com"],
    skipped: [
      {
        hook: "ValidatingWebhookConfiguration/cfg/other.example.com",
        reason: "object-selector",
        message: "objectSelector {app=api} matches neither the object nor the old object",
      },
    ],
  },
});

const CFG = { resource: "validatingwebhookconfigurations", name: "cfg" };

describeStores("kept admission test cases", (ctx) => {
  let cases: CaseStore;
  beforeEach(async () => {
    await ctx.store.driver.exec(`DROP TABLE IF EXISTS ${CASES_TABLE}`);
    cases = new CaseStore(ctx.store.driver);
    await cases.migrate();
    // A second migrate (the next process) finds the table and keeps it.
    await cases.migrate();
  });

  it("keeps a case per context and configuration, and reads it back whole", async () => {
    const a = await cases.save("ctx-1", CFG, podCase("create pods team-a/web-1"), T0);
    await cases.save("ctx-2", CFG, podCase("other context"), T0);
    await cases.save(
      "ctx-1",
      { resource: "validatingadmissionpolicies", name: "cfg" },
      podCase("policy"),
      T0,
    );
    const b = await cases.save("ctx-1", CFG, podCase("second"), T0 + 1);
    expect(a).toMatchObject({ context: "ctx-1", owner: CFG, created: T0 });
    const listed = await cases.list("ctx-1", [CFG]);
    expect(listed.map((c) => c.case.name)).toEqual(["second", "create pods team-a/web-1"]);
    expect(listed[1]).toEqual({ ...a, case: podCase("create pods team-a/web-1") });
    expect(await cases.get(b.id)).toEqual(b);
    const both = await cases.list("ctx-1", [
      CFG,
      { resource: "validatingadmissionpolicies", name: "cfg" },
    ]);
    expect(both).toHaveLength(3);
    expect(await cases.list("ctx-1", [])).toEqual([]);
  });

  it("forgets a case", async () => {
    const a = await cases.save("ctx-1", CFG, podCase("x"), T0);
    expect(await cases.remove(a.id)).toBe(true);
    expect(await cases.remove(a.id)).toBe(false);
    expect(await cases.get(a.id)).toBeUndefined();
    expect(await cases.list("ctx-1", [CFG])).toEqual([]);
  });

  it("refuses a case that is not of the test file format", async () => {
    const bad = { ...podCase("x"), request: { operation: "PATCH" } } as unknown as TestCase;
    await expect(cases.save("ctx-1", CFG, bad)).rejects.toThrow();
    expect(await cases.list("ctx-1", [CFG])).toEqual([]);
  });

  it("reads the feed's last requests for the hooks with their events, each event once", async () => {
    await ctx.store.ingest([
      parsed("e1", { hook: "m.example.com", t: T0 }),
      parsed("e2", { hook: "m.example.com", t: T0 + 1, ns: "b" }),
      parsed("e3", { hook: "other.example.com", t: T0 + 2 }),
      parsed("e4", { hook: "m.example.com", t: T0 + 3, ns: "c" }),
    ]);
    const filters = [
      { hook: "m.example.com", configuration: "cfg", phase: "mutating" as const, outcome: [] },
      { hook: "m.example.com", outcome: [] },
    ];
    const got = await recentRequests(ctx.store, filters, 2);
    expect(got.map((r) => r.auditID)).toEqual(["e4", "e2"]);
    expect(got[0]?.request).toMatchObject({
      operation: "CREATE",
      resource: "configmaps",
      namespace: "c",
    });
    expect(JSON.parse(got[0]?.rawEvent ?? "{}")).toMatchObject({ auditID: "e4" });
    expect(await recentRequests(ctx.store, filters, 0)).toEqual([]);
  });
});
