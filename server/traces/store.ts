import "server-only";
import type { WebhookSpan } from "@/lib/traces/otlp";
import type { ReceiverStatus, TracedCall } from "@/lib/traces/summary";

/** Calls kept per hook: the newest, enough for a distribution and recent calls. */
const PER_HOOK = 256;
/** Hooks kept: the least recently called are forgotten first. */
const MAX_HOOKS = 2048;

interface State {
  /** `${kind}/${configuration}/${webhook}` → its calls, oldest first (a bounded queue). */
  hooks: Map<string, TracedCall[]>;
  status: ReceiverStatus;
}

const g = globalThis as typeof globalThis & { portcullisTraces?: State };

function state(): State {
  g.portcullisTraces ??= {
    hooks: new Map(),
    status: { exports: 0, spans: 0, droppedSpans: 0, instances: [] },
  };
  return g.portcullisTraces;
}

/** The store key of a hook: spans name their configuration, so same-named hooks stay apart. */
function traceKey(kind: "mutating" | "validating", configuration: string, webhook: string) {
  return `${kind}/${configuration}/${webhook}`;
}

/** Keeps the webhook-call spans of one export. */
export function recordSpans(
  spans: readonly WebhookSpan[],
  info: { droppedSpans: number; instance?: string },
): void {
  const s = state();
  for (const sp of spans) {
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
