import "server-only";
import type { TraceRequest, WebhookSpan } from "@/lib/traces/otlp";
import type { ReceiverStatus, RequestCall, TracedCall } from "@/lib/traces/summary";

/** Calls kept per hook: the newest, enough for a distribution and recent calls. */
const PER_HOOK = 256;
/** Hooks kept: the least recently called are forgotten first. */
const MAX_HOOKS = 2048;
/** Requests (and traces waiting for their request's audit ID) kept for the decision feed. */
const MAX_REQUESTS = 50_000;

interface State {
  /** `${kind}/${configuration}/${webhook}` → its calls, oldest first (a bounded queue). */
  hooks: Map<string, TracedCall[]>;
  /** Trace → the audit ID its handler span named. */
  traceAudit: Map<string, string>;
  /** Audit ID → the webhook calls of that request. */
  requestCalls: Map<string, RequestCall[]>;
  /** Trace → webhook calls seen before the handler span that names the request (batches split). */
  pending: Map<string, RequestCall[]>;
  status: ReceiverStatus;
}

const g = globalThis as typeof globalThis & { portcullisTraces?: State };

function state(): State {
  g.portcullisTraces ??= {
    hooks: new Map(),
    traceAudit: new Map(),
    requestCalls: new Map(),
    pending: new Map(),
    status: { exports: 0, spans: 0, droppedSpans: 0, instances: [] },
  };
  return g.portcullisTraces;
}

/** The store key of a hook: spans name their configuration, so same-named hooks stay apart. */
function traceKey(kind: "mutating" | "validating", configuration: string, webhook: string) {
  return `${kind}/${configuration}/${webhook}`;
}

/** Adds to a bounded map, forgetting the oldest entry when full. */
function boundedSet<V>(m: Map<string, V>, key: string, value: V): void {
  if (!m.has(key) && m.size >= MAX_REQUESTS) {
    const oldest = m.keys().next().value;
    if (oldest !== undefined) m.delete(oldest);
  }
  m.set(key, value);
}

function addRequestCalls(s: State, auditID: string, calls: readonly RequestCall[]): void {
  const list = s.requestCalls.get(auditID) ?? [];
  list.push(...calls);
  list.sort((a, b) => a.startMs - b.startMs);
  boundedSet(s.requestCalls, auditID, list);
}

/** Keeps the webhook-call spans of one export, and ties them to their requests' audit IDs. */
export function recordSpans(
  spans: readonly WebhookSpan[],
  info: { droppedSpans: number; instance?: string },
  requests: readonly TraceRequest[] = [],
): void {
  const s = state();
  for (const r of requests) {
    boundedSet(s.traceAudit, r.traceId, r.auditID);
    const waiting = s.pending.get(r.traceId);
    if (waiting) {
      s.pending.delete(r.traceId);
      addRequestCalls(s, r.auditID, waiting);
    }
  }
  for (const sp of spans) {
    if (sp.traceId) {
      const call: RequestCall = {
        kind: sp.kind,
        configuration: sp.configuration,
        webhook: sp.webhook,
        startMs: sp.startMs,
        durationMs: sp.durationMs,
        failed: sp.status === "error",
      };
      const auditID = s.traceAudit.get(sp.traceId);
      if (auditID) addRequestCalls(s, auditID, [call]);
      else boundedSet(s.pending, sp.traceId, [...(s.pending.get(sp.traceId) ?? []), call]);
    }
    const key = traceKey(sp.kind, sp.configuration, sp.webhook);
    let calls = s.hooks.get(key);
    if (calls) {
      // Re-insert: the Map's order is then least recently called first.
      s.hooks.delete(key);
    } else {
      calls = [];
      if (s.hooks.size >= MAX_HOOKS) {
        const oldest = s.hooks.keys().next().value;
        if (oldest !== undefined) s.hooks.delete(oldest);
      }
    }
    s.hooks.set(key, calls);
    calls.push({
      startMs: sp.startMs,
      durationMs: sp.durationMs,
      operation: sp.operation,
      resource: sp.resource,
      subresource: sp.subresource,
      uid: sp.uid,
      traceId: sp.traceId,
      failed: sp.status === "error",
    });
    if (calls.length > PER_HOOK) calls.splice(0, calls.length - PER_HOOK);
  }
  const st = s.status;
  st.exports++;
  st.spans += spans.length;
  st.droppedSpans += info.droppedSpans;
  st.lastExportAt = Date.now();
  if (info.instance && !st.instances.includes(info.instance) && st.instances.length < 16) {
    st.instances.push(info.instance);
  }
}

/** The webhook calls the apiserver traced for the request with this audit ID, in start order. */
export function callsOfRequest(auditID: string): readonly RequestCall[] {
  return state().requestCalls.get(auditID) ?? [];
}

/** The calls kept of one hook, oldest first. */
export function callsOf(
  kind: "mutating" | "validating",
  configuration: string,
  webhook: string,
): readonly TracedCall[] {
  return state().hooks.get(traceKey(kind, configuration, webhook)) ?? [];
}

/** Where the receiver stands: shown on the Health page so a silent exporter is visible. */
export function receiverStatus(): ReceiverStatus {
  const st = state().status;
  return { ...st, instances: [...st.instances] };
}

/** Records where the receiver listens, or why it could not. */
export function setReceiverListening(listening: string | undefined, error?: string): void {
  const st = state().status;
  st.listening = listening;
  st.error = error;
}
