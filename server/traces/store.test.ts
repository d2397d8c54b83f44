/** The trace store ties webhook calls to their request's audit ID, whichever span arrives first. */
import { describe, expect, it } from "vitest";
import type { WebhookSpan } from "@/lib/traces/otlp";
import { callsOfRequest, recordSpans } from "./store";

const span = (traceId: string, webhook: string, durationMs: number, startMs = 1): WebhookSpan => ({
  kind: "mutating",
  configuration: "cfg",
  webhook,
  resource: "/v1, Resource=configmaps",
  subresource: "",
  operation: "CREATE",
  uid: `${traceId}-${webhook}-${startMs}`,
  traceId,
  startMs,
  durationMs,
  status: "unset",
});

describe("trace store: calls by request", () => {
  it("joins when the handler span came in the same export or before", () => {
    recordSpans([span("t1", "a", 2)], { droppedSpans: 0 }, [{ traceId: "t1", auditID: "req-1" }]);
    recordSpans([span("t1", "b", 5, 2)], { droppedSpans: 0 });
    expect(callsOfRequest("req-1").map((c) => [c.webhook, c.durationMs])).toEqual([
      ["a", 2],
      ["b", 5],
    ]);
  });

  it("joins webhook spans that arrived before the span naming their request", () => {
    recordSpans([span("t2", "a", 9, 5), span("t2", "a", 3, 1)], { droppedSpans: 0 });
    expect(callsOfRequest("req-2")).toEqual([]);
    recordSpans([], { droppedSpans: 0 }, [{ traceId: "t2", auditID: "req-2" }]);
    expect(callsOfRequest("req-2").map((c) => c.durationMs)).toEqual([3, 9]);
  });

  it("knows nothing of a request whose trace it never saw", () => {
    expect(callsOfRequest("never")).toEqual([]);
  });
});
