import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_RAW_EVENT_CHARS, parseEventList } from "./audit";
import { eventListItemSpans, parseEventListBody, parseEventListText } from "./audit-batch";

const MUTATION = "mutation.webhook.admission.k8s.io/round_0_index_0";

function event(auditID: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID,
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces/a/configmaps",
    verb: "create",
    user: { username: "alice", groups: ["g"] },
    objectRef: { resource: "configmaps", namespace: "a", name: auditID, apiVersion: "v1" },
    responseStatus: { code: 201 },
    stageTimestamp: "2026-11-23T11:00:00.000000Z",
    annotations: { [MUTATION]: '{"configuration":"c","webhook":"w.example.com","mutated":true}' },
    ...over,
  };
}

const list = (items: unknown[]) => ({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items });

/** The events recorded from the apiserver for the benchmarks, one JSON text each. */
const recordedEvents = () =>
  readFileSync(path.join(import.meta.dirname, "../../../bench/fixtures/audit-events.jsonl"), "utf8")
    .trim()
    .split("\n");

/** What parsing the whole body gives, with the raw events compared as values. */
function viaJsonParse(text: string) {
  return parseEventList(JSON.parse(text)).map((e) => ({ ...e, raw: JSON.parse(e.raw) }));
}
function viaText(text: string) {
  return parseEventListText(text).map((e) => ({ ...e, raw: JSON.parse(e.raw) }));
}

describe("parseEventListText", () => {
  it("gives what parsing the whole body gives, on batches recorded from the apiserver", () => {
    const fixture = recordedEvents();
    const text = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${fixture.join(",")}]}`;
    const got = parseEventListText(text);
    expect(got.length).toBeGreaterThan(100);
    expect(got.map((e) => ({ ...e, raw: JSON.parse(e.raw) }))).toEqual(viaJsonParse(text));
    // The sender's own text is kept as the raw event (no re-serialisation) unless redacted.
    const kept = got.filter((e) => fixture.includes(e.raw));
    expect(kept.length).toBeGreaterThan(got.length / 2);
  });

  it("gives what parsing the whole body gives on recorded events with fields mutated at random", () => {
    const fixture = recordedEvents().map((l) => JSON.parse(l) as unknown);
    // A seeded generator: the same bodies on every run.
    let seed = 20261126;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const odd: unknown[] = [
      null,
      0,
      -1,
      1e308,
      "",
      "x".repeat(3000),
      'ü\u2028"\\\n}],{"kind":"Event"',
      [],
      {},
      [1, "a", { b: [] }],
      // The seam between two items, inside one item.
      [{}, { kind: "Event", auditID: "inner", stage: "ResponseComplete" }],
      true,
      "round_0_index_-1",
      "2026-13-45T99:99:99Z",
      "9".repeat(400),
    ];
    const mutate = (v: unknown): unknown => {
      if (v === null || typeof v !== "object") return rnd() < 0.15 ? pick(odd) : v;
      if (Array.isArray(v)) return v.map(mutate);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (rnd() < 0.05) continue;
        out[k] = rnd() < 0.1 ? pick(odd) : mutate(x);
      }
      return out;
    };
    let decisions = 0;
    for (let i = 0; i < 1500; i++) {
      const items = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => mutate(pick(fixture)));
      const text = JSON.stringify(list(items), null, rnd() < 0.2 ? 1 : undefined);
      const got = viaText(text);
      expect(got).toEqual(viaJsonParse(text));
      for (const e of got) decisions += e.decisions.length;
    }
    // The mutations leave most events readable: this compared decisions, not only rejections.
    expect(decisions).toBeGreaterThan(1500);
  });

  it("keeps each item's exact text, whitespace and escapes included", () => {
    const tricky = event("t1", {
      objectRef: { resource: "configmaps", namespace: "a", name: 'x"]}[{\\', apiVersion: "v1" },
      userAgent: 'quote \\" bracket ] brace } \\\\',
    });
    const text = JSON.stringify(list([event("p1"), 42, null, [1, [2]], tricky, "s"]), null, 2);
    const got = parseEventListText(text);
    expect(got.map((e) => e.auditID)).toEqual(["p1", "t1"]);
    expect(got[1]?.raw).toBe(JSON.stringify(tricky, null, 2).replaceAll("\n", "\n    "));
    expect(got[1]?.request.name).toBe('x"]}[{\\');
    expect(viaText(text)).toEqual(viaJsonParse(text));
  });

  it("is not misled by the seam between items appearing inside an item", () => {
    const nested = event("n1", {
      level: "Request",
      requestObject: {
        items: [
          { kind: "Event", a: 1 },
          { kind: "Event", b: '},{"kind":"Event"' },
        ],
      },
    });
    const text = JSON.stringify(list([event("p1"), nested, event("p2")]));
    expect(text.split('},{"kind":"Event"').length).toBe(4);
    const got = parseEventListText(text);
    expect(got.map((e) => e.auditID)).toEqual(["p1", "n1", "p2"]);
    expect(got[1]?.raw).toBe(JSON.stringify(nested));
    expect(viaText(text)).toEqual(viaJsonParse(text));
  });

  it("reads the last of repeated items keys, and escaped keys, as JSON.parse does", () => {
    const dup = `{"kind":"EventList","items":[${JSON.stringify(event("first"))}],"items":[${JSON.stringify(event("last"))}]}`;
    expect(parseEventListText(dup).map((e) => e.auditID)).toEqual(["last"]);
    const escaped = `{"kind":"EventList","items":[],"\\u0069tems":[${JSON.stringify(event("esc"))}]}`;
    expect(eventListItemSpans(escaped)).toBeDefined();
    expect(parseEventListText(escaped).map((e) => e.auditID)).toEqual(["esc"]);
  });

  it("rejects what is not JSON or not an EventList, as parsing the whole body does", () => {
    const good = JSON.stringify(list([event("a")]));
    for (const bad of [
      good.slice(0, -1),
      `${good}x`,
      good.replace('"items":[', '"items":[,'),
      good.replace("}]}", "} 1]}"),
      good.replace('"a"', '"a'),
    ]) {
      expect(() => JSON.parse(bad)).toThrow(SyntaxError);
      expect(() => parseEventListText(bad)).toThrow(SyntaxError);
    }
    expect(() => parseEventListText(JSON.stringify({ kind: "Event", items: [] }))).toThrow(
      /EventList/,
    );
    expect(() => parseEventListText("[]")).toThrow(/EventList/);
    expect(parseEventListText(JSON.stringify(list([])))).toEqual([]);
  });

  it("never keeps a Secret's text: its raw event is the redacted one", () => {
    const secret = event("s1", {
      level: "Request",
      objectRef: { resource: "secrets", namespace: "a", name: "creds", apiVersion: "v1" },
      requestObject: { data: { password: "c2VjcmV0LXZhbHVl" } },
    });
    const [p] = parseEventListText(JSON.stringify(list([secret])));
    expect(p?.raw).not.toContain("c2VjcmV0LXZhbHVl");
    expect(JSON.parse(p?.raw ?? "{}")).toMatchObject({ auditID: "s1" });
  });

  it("reads strings made of long runs of backslashes and escaped quotes", () => {
    // Runs of 28,000 backslashes in the text, the event still within MAX_RAW_EVENT_CHARS (a larger
    // one is stored cut): its raw is the sender's own text.
    const nasty = event("n1", { userAgent: `${"\\\\".repeat(7_000)}${'\\"'.repeat(7_000)}` });
    const text = JSON.stringify(list(Array.from({ length: 20 }, () => nasty)));
    const got = parseEventListText(text);
    expect(got).toHaveLength(20);
    expect(JSON.stringify(nasty).length).toBeLessThanOrEqual(MAX_RAW_EVENT_CHARS);
    expect(got[19]?.raw).toBe(JSON.stringify(nasty));
  });
});

describe("parseEventListBody", () => {
  /** Each event's text as its bytes in the body, where the parse marked them ("-" where not). */
  function ownBytes(body: Buffer): string[] {
    return parseEventListBody(body).map((e) => {
      const start = e.rawItem === undefined ? -1 : (e.rawSource?.start(e.rawItem) ?? -1);
      if (start < 0) return "-";
      const end = e.rawSource?.end(e.rawItem as number, e.raw) ?? -1;
      expect(body.subarray(start, end).toString("utf8")).toBe(e.raw);
      return e.auditID;
    });
  }

  it("gives what the text's parse gives, and where every sender's text is in the bytes", () => {
    const fixture = recordedEvents();
    // The apiserver's latency annotations hold "µs": the text is shorter than its bytes.
    const text = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${fixture.join(",")}]}`;
    const body = Buffer.from(text);
    expect(body.length).toBeGreaterThan(text.length);
    const strip = (es: ReturnType<typeof parseEventListText>) =>
      es.map(({ rawSource: _s, rawItem: _i, ...e }) => e);
    expect(strip(parseEventListBody(body))).toEqual(strip(parseEventListText(text)));
    const marked = ownBytes(body);
    expect(marked.filter((m) => m !== "-").length).toBeGreaterThan(marked.length / 2);
  });

  it("marks the bytes of ASCII, multi-byte and broken bodies; not those of redacted texts", () => {
    const secret = event("s1", {
      objectRef: { resource: "secrets", namespace: "a", name: "creds", apiVersion: "v1" },
      requestObject: { data: { password: "c2VjcmV0LXZhbHVl" } },
    });
    const items = [
      event("a1"),
      event("u1", { user: { username: "zoë 👩‍💻", groups: [] } }),
      event("n1", { annotations: {} }), // no decision
      secret,
      event("a2", { userAgent: "µ" }),
    ];
    expect(ownBytes(Buffer.from(JSON.stringify(list([event("a1"), event("a2")]))))).toEqual([
      "a1",
      "a2",
    ]);
    expect(ownBytes(Buffer.from(JSON.stringify(list(items))))).toEqual(["a1", "u1", "-", "a2"]);
    // A lone byte that is not UTF-8 decodes to one character, U+FFFD, wherever its bytes go.
    const broken = Buffer.from(JSON.stringify(list([event("b1", { userAgent: "AB" })])));
    broken[broken.indexOf("AB")] = 0xff;
    expect(ownBytes(broken)).toEqual(["b1"]);
    expect(parseEventListBody(broken)[0]?.raw).toContain("\ufffdB");
    // Items found by the general scanner: marked when every character is a byte, else not.
    expect(
      ownBytes(Buffer.from(JSON.stringify(list([event("p1"), event("p2")]), null, 2))),
    ).toEqual(["p1", "p2"]);
    expect(
      ownBytes(
        Buffer.from(JSON.stringify(list([event("p1", { userAgent: "µ" }), event("p2")]), null, 2)),
      ),
    ).toEqual(["-", "-"]);
  });
});
