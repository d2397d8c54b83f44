/**
 * A small protobuf decoder for OTLP's ExportTraceServiceRequest that keeps only the spans the
 * apiserver's webhook dispatchers open per call (k8s.io/apiserver pkg/admission/plugin/webhook/
 * {mutating,validating}/dispatcher.go): "Call mutating webhook" / "Call validating webhook", with
 * the attributes configuration, webhook, resource, subresource, operation and UID (the
 * AdmissionReview request's uid, which the webhook receives too).
 *
 * Also keeps, from any other span, the `audit-id` attribute the apiserver's request handlers set
 * (k8s.io/apiserver pkg/endpoints/handlers/trace_util.go): it ties a trace, and so its webhook
 * calls, to the audit event of the same request.
 *
 * Linear and bounded: every byte is read once, messages that are not needed are skipped by their
 * length, strings are cut at MAX_STRING, and at most `maxSpans` spans are kept per request.
 * Field numbers from opentelemetry/proto/{collector/trace,trace,common,resource}/v1.
 */

import { storedAuditID } from "@/lib/admission/audit/audit-id";

const WEBHOOK_SPAN_NAMES: Readonly<Record<string, "mutating" | "validating">> = {
  "Call mutating webhook": "mutating",
  "Call validating webhook": "validating",
};

/** One webhook call as the apiserver timed it. */
export interface WebhookSpan {
  kind: "mutating" | "validating";
  configuration: string;
  webhook: string;
  /** As the apiserver prints a GroupVersionResource, e.g. "/v1, Resource=configmaps". */
  resource: string;
  subresource: string;
  operation: string;
  /** The AdmissionReview request uid of this call. */
  uid: string;
  traceId: string;
  /** Start, milliseconds since the epoch. */
  startMs: number;
  durationMs: number;
  /** OTLP status: "error" when the call failed (the apiserver records the error on the span). */
  status: "unset" | "ok" | "error";
  statusMessage?: string;
}

/** A trace's request, by the audit ID its handler span names. */
export interface TraceRequest {
  traceId: string;
  auditID: string;
}

export interface DecodedExport {
  spans: WebhookSpan[];
  /** Traces whose handler span names the request's audit ID. */
  requests: TraceRequest[];
  /** Spans of other names, skipped. */
  otherSpans: number;
  /** Webhook spans beyond `maxSpans`, dropped. */
  droppedSpans: number;
  /** The resource's service.instance.id (the apiserver's ID), when sent. */
  serviceInstance?: string;
}

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OtlpDecodeError";
  }
}

const MAX_STRING = 1024;
const decoder = new TextDecoder("utf-8", { fatal: false });

/** A cursor over one message's bytes [pos, end). */
class Reader {
  constructor(
    readonly buf: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): number {
    let result = 0;
    let shift = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new OtlpDecodeError("truncated varint");
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * shift;
      if ((b & 0x80) === 0) return result;
      shift *= 128;
    }
    throw new OtlpDecodeError("varint longer than 10 bytes");
  }

  /** A length-delimited field's bounds. */
  sub(): Reader {
    const len = this.varint();
    if (len > this.end - this.pos) throw new OtlpDecodeError("field longer than its message");
    const r = new Reader(this.buf, this.pos, this.pos + len);
    this.pos += len;
    return r;
  }

  string(): string {
    const r = this.sub();
    const bytes = this.buf.subarray(r.pos, Math.min(r.end, r.pos + MAX_STRING * 4));
    const s = decoder.decode(bytes);
    return s.length > MAX_STRING ? s.slice(0, MAX_STRING) : s;
  }

  hex(): string {
    const r = this.sub();
    let s = "";
    for (let i = r.pos; i < Math.min(r.end, r.pos + 32); i++) {
      s += (this.buf[i] as number).toString(16).padStart(2, "0");
    }
    return s;
  }

  /** fixed64 as [low, high] 32-bit halves (nanosecond timestamps pass 2^53). */
  fixed64(): [number, number] {
    if (this.end - this.pos < 8) throw new OtlpDecodeError("truncated fixed64");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8);
    this.pos += 8;
    return [v.getUint32(0, true), v.getUint32(4, true)];
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        if (this.end - this.pos < 8) throw new OtlpDecodeError("truncated fixed64");
        this.pos += 8;
        return;
      case 2:
        this.sub();
        return;
      case 5:
        if (this.end - this.pos < 4) throw new OtlpDecodeError("truncated fixed32");
        this.pos += 4;
        return;
      default:
        throw new OtlpDecodeError(`unsupported wire type ${wireType}`);
    }
  }

  /** Calls `on(field, wireType)` for each field; `on` must consume it or return false to skip. */
  fields(on: (field: number, wireType: number) => boolean): void {
    while (!this.done) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wireType = tag & 7;
      if (!on(field, wireType)) this.skip(wireType);
    }
  }
}

/** AnyValue: string_value (1), bool (2), int (3), double (4); others are not needed here. */
function anyValueText(r: Reader): string {
  let out = "";
  r.fields((f, w) => {
    if (f === 1 && w === 2) {
      out = r.string();
      return true;
    }
    if (f === 3 && w === 0) {
      out = String(r.varint());
      return true;
    }
    if (f === 2 && w === 0) {
      out = r.varint() ? "true" : "false";
      return true;
    }
    return false;
  });
  return out;
}

/** KeyValue: key (1), value (2). */
function keyValue(r: Reader): [string, string] {
  let key = "";
  let value = "";
  r.fields((f, w) => {
    if (f === 1 && w === 2) {
      key = r.string();
      return true;
    }
    if (f === 2 && w === 2) {
      value = anyValueText(r.sub());
      return true;
    }
    return false;
  });
  return [key, value];
}

/** Status.code: STATUS_CODE_UNSET 0, OK 1, ERROR 2. */
const STATUS: ReadonlyArray<WebhookSpan["status"]> = ["unset", "ok", "error"];

const nanosToMs = ([lo, hi]: [number, number]) => (hi * 4294967296 + lo) / 1e6;

/** Span: name (5) first decides; ids (1), times (7, 8), attributes (9), status (15). */
function span(r: Reader): WebhookSpan | { name: string; traceId: string; auditID?: string } {
  let name = "";
  let traceId = "";
  let start: [number, number] = [0, 0];
  let end: [number, number] = [0, 0];
  const attrs: Record<string, string> = {};
  let status: WebhookSpan["status"] = "unset";
  let statusMessage: string | undefined;
  r.fields((f, w) => {
    if (f === 5 && w === 2) name = r.string();
    else if (f === 1 && w === 2) traceId = r.hex();
    else if (f === 7 && w === 1) start = r.fixed64();
    else if (f === 8 && w === 1) end = r.fixed64();
    else if (f === 9 && w === 2) {
      const [k, v] = keyValue(r.sub());
      attrs[k] = v;
    } else if (f === 15 && w === 2) {
      const st = r.sub();
      st.fields((sf, sw) => {
        if (sf === 2 && sw === 2) statusMessage = st.string();
        else if (sf === 3 && sw === 0) status = STATUS[st.varint()] ?? "unset";
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
  const kind = WEBHOOK_SPAN_NAMES[name];
  if (!kind) {
    const id = attrs["audit-id"];
    // Bounded as the decisions' are, so a request with a long Audit-ID still finds its calls (one
    // longer than MAX_STRING is cut here first, and finds none).
    return { name, traceId, auditID: id ? storedAuditID(id) : undefined };
  }
  // Exact in the difference even where the absolute nanoseconds are not.
  const durationNs = (end[1] - start[1]) * 4294967296 + (end[0] - start[0]);
  return {
    kind,
    configuration: attrs.configuration ?? "",
    webhook: attrs.webhook ?? "",
    resource: attrs.resource ?? "",
    subresource: attrs.subresource ?? "",
    operation: attrs.operation ?? "",
    uid: attrs.UID ?? "",
    traceId,
    startMs: nanosToMs(start),
    durationMs: Math.max(0, durationNs / 1e6),
    status,
    statusMessage,
  };
}

/**
 * Decodes an ExportTraceServiceRequest (resource_spans 1 → resource 1 / scope_spans 2 → spans 2)
 * and returns the webhook-call spans in it.
 */
export function decodeWebhookSpans(
  bytes: Uint8Array,
  limits: { maxSpans?: number } = {},
): DecodedExport {
  const maxSpans = limits.maxSpans ?? 10_000;
  const out: DecodedExport = { spans: [], requests: [], otherSpans: 0, droppedSpans: 0 };
  const root = new Reader(bytes, 0, bytes.length);
  root.fields((f, w) => {
    if (f !== 1 || w !== 2) return false;
    const rs = root.sub();
    rs.fields((rf, rw) => {
      if (rf === 1 && rw === 2) {
        const res = rs.sub();
        res.fields((af, aw) => {
          if (af !== 1 || aw !== 2) return false;
          const [k, v] = keyValue(res.sub());
          if (k === "service.instance.id") out.serviceInstance = v;
          return true;
        });
        return true;
      }
      if (rf !== 2 || rw !== 2) return false;
      const ss = rs.sub();
      ss.fields((sf, sw) => {
        if (sf !== 2 || sw !== 2) return false;
        const s = span(ss.sub());
        if (!("kind" in s)) {
          out.otherSpans++;
          if (s.auditID && s.traceId && out.requests.length < maxSpans)
            out.requests.push({ traceId: s.traceId, auditID: s.auditID });
        } else if (out.spans.length < maxSpans) out.spans.push(s);
        else out.droppedSpans++;
        return true;
      });
      return true;
    });
    return true;
  });
  return out;
}
