import { describe, expect, it } from "vitest";
import { storedAuditID } from "@/lib/admission/audit/audit-id";
import { decodeWebhookSpans, OtlpDecodeError } from "./otlp";

/** A minimal protobuf writer for the tests: fields as [number, wireType, value]. */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 128) {
    out.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
const tag = (field: number, wire: number) => varint(field * 8 + wire);
const bytes = (field: number, body: number[]) => [
  ...tag(field, 2),
  ...varint(body.length),
  ...body,
];
const str = (field: number, s: string) => bytes(field, [...new TextEncoder().encode(s)]);
function fixed64(field: number, v: bigint): number[] {
  const out = [...tag(field, 1)];
  for (let i = 0n; i < 8n; i++) out.push(Number((v >> (8n * i)) & 0xffn));
  return out;
}
const kv = (k: string, v: string) => bytes(9, [...str(1, k), ...bytes(2, str(1, v))]);

function webhookSpan(opts: {
  name?: string;
  start: bigint;
  end: bigint;
  uid?: string;
  status?: number;
}): number[] {
  return [
    ...bytes(1, [0xab, 0xcd]),
    ...bytes(2, [1, 2, 3, 4, 5, 6, 7, 8]),
    ...str(5, opts.name ?? "Call validating webhook"),
    ...varint(6 * 8),
    ...varint(3),
    ...fixed64(7, opts.start),
    ...fixed64(8, opts.end),
    ...kv("configuration", "cfg"),
    ...kv("webhook", "v.example.com"),
    ...kv("resource", "/v1, Resource=configmaps"),
    ...kv("subresource", ""),
    ...kv("operation", "CREATE"),
    ...kv("UID", opts.uid ?? "u-1"),
    // An event (11) nobody reads, and a status (15).
    ...bytes(11, [...fixed64(1, 1n), ...str(2, "event")]),
    ...(opts.status !== undefined
      ? bytes(15, [...str(2, "failed calling webhook"), ...tag(3, 0), ...varint(opts.status)])
      : []),
  ];
}

function request(spans: number[][], instance = "apiserver-abc"): Uint8Array {
  const resource = bytes(1, [
    ...bytes(1, [...str(1, "service.name"), ...bytes(2, str(1, "apiserver"))]),
    ...bytes(1, [...str(1, "service.instance.id"), ...bytes(2, str(1, instance))]),
  ]);
  const scope = bytes(2, [
    ...bytes(1, str(1, "k8s.io/component-base/tracing")),
    ...spans.flatMap((s) => bytes(2, s)),
  ]);
  return new Uint8Array(bytes(1, [...resource, ...scope]));
}

// 2026-11-23T13:00:00Z in nanoseconds: past 2^53, as real timestamps are.
const T0 = 1_795_438_800_000_000_000n;

describe("decodeWebhookSpans", () => {
  it("keeps webhook-call spans with their attributes and exact durations", () => {
    const out = decodeWebhookSpans(
      request([
        webhookSpan({ start: T0, end: T0 + 212_345_678n, uid: "a" }),
        webhookSpan({
          name: "Call mutating webhook",
          start: T0,
          end: T0 + 1_000n,
          uid: "b",
          status: 2,
        }),
        webhookSpan({ name: "HTTP POST", start: T0, end: T0 + 5n }),
      ]),
    );
    expect(out.serviceInstance).toBe("apiserver-abc");
    expect(out.otherSpans).toBe(1);
    expect(out.spans).toHaveLength(2);
    expect(out.spans[0]).toMatchObject({
      kind: "validating",
      configuration: "cfg",
      webhook: "v.example.com",
      resource: "/v1, Resource=configmaps",
      operation: "CREATE",
      uid: "a",
      traceId: "abcd",
      status: "unset",
    });
    expect(out.spans[0]?.durationMs).toBeCloseTo(212.345678, 6);
    expect(out.spans[0]?.startMs).toBeCloseTo(1_795_438_800_000, 0);
    expect(out.spans[1]).toMatchObject({
      kind: "mutating",
      uid: "b",
      status: "error",
      statusMessage: "failed calling webhook",
    });
    expect(out.spans[1]?.durationMs).toBeCloseTo(0.001, 9);
  });

  it("ties a trace to its request by the handler span's audit-id attribute", () => {
    const handler = [
      ...bytes(1, [0xab, 0xcd]),
      ...bytes(2, [9, 9, 9, 9, 9, 9, 9, 9]),
      ...str(5, "Create"),
      ...fixed64(7, T0),
      ...fixed64(8, T0 + 5n),
      ...kv("audit-id", "5e0c8d3a-1111-2222-3333-444455556666"),
      ...kv("verb", "POST"),
    ];
    const plain = [...str(5, "HTTP POST"), ...fixed64(7, T0), ...fixed64(8, T0 + 9n)];
    const out = decodeWebhookSpans(
      request([webhookSpan({ start: T0, end: T0 + 1n }), handler, plain]),
    );
    expect(out.requests).toEqual([
      { traceId: "abcd", auditID: "5e0c8d3a-1111-2222-3333-444455556666" },
    ]);
    expect(out.spans[0]?.traceId).toBe("abcd");
    expect(out.otherSpans).toBe(2);
  });

  it("bounds a long audit-id as the decisions' are, so the trace finds them", () => {
    const long = `trace-${"a".repeat(130)}`;
    const handler = [...bytes(1, [0xab, 0xcd]), ...str(5, "Create"), ...kv("audit-id", long)];
    expect(decodeWebhookSpans(request([handler])).requests).toEqual([
      { traceId: "abcd", auditID: storedAuditID(long) },
    ]);
  });

  it("keeps at most maxSpans and counts the rest", () => {
    const spans = Array.from({ length: 5 }, (_, i) =>
      webhookSpan({ start: T0, end: T0 + 1n, uid: String(i) }),
    );
    const out = decodeWebhookSpans(request(spans), { maxSpans: 3 });
    expect(out.spans.map((s) => s.uid)).toEqual(["0", "1", "2"]);
    expect(out.droppedSpans).toBe(2);
  });

  it("cuts long strings", () => {
    const out = decodeWebhookSpans(
      request([webhookSpan({ start: T0, end: T0 + 1n, uid: "x".repeat(100_000) })]),
    );
    expect(out.spans[0]?.uid).toHaveLength(1024);
  });

  it("refuses truncated and malformed input with a clear error", () => {
    const whole = request([webhookSpan({ start: T0, end: T0 + 1n })]);
    for (const cut of [1, 10, whole.length - 1]) {
      expect(() => decodeWebhookSpans(whole.subarray(0, cut))).toThrow(OtlpDecodeError);
    }
    // A length past the end of the message.
    expect(() => decodeWebhookSpans(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f]))).toThrow(
      "field longer than its message",
    );
    // Groups (wire types 3/4) are not part of OTLP.
    expect(() => decodeWebhookSpans(new Uint8Array([0x0b]))).toThrow("unsupported wire type 3");
    expect(decodeWebhookSpans(new Uint8Array())).toEqual({
      spans: [],
      requests: [],
      otherSpans: 0,
      droppedSpans: 0,
    });
  });

  it("decodes every span of a larger export", () => {
    const spans = Array.from({ length: 2_000 }, (_, i) =>
      webhookSpan({ start: T0, end: T0 + BigInt(i) * 1_000_000n, uid: String(i) }),
    );
    const out = decodeWebhookSpans(request(spans));
    expect(out.spans).toHaveLength(2_000);
    expect(out.spans[1999]?.durationMs).toBe(1999);
  });
});
