/**
 * Runs once when a dashboard server process starts: registers the front door that
 * scripts/start.mjs asks about every request body before the server reads it
 * (server/http/front-door.ts), ends open event streams on SIGTERM and
 * SIGINT (so the server can stop), begins following the apiserver's audit log
 * file when PORTCULLIS_AUDIT_LOG is set (file mode, for clusters without the audit webhook), and
 * starts the OTLP trace receiver when PORTCULLIS_OTLP_LISTEN names an address (README, "Per-call
 * webhook latency from your apiserver's traces") and the audit sink's own HTTPS listener when
 * PORTCULLIS_AUDIT_TLS_LISTEN does (README, "Admission decisions from your apiserver"), and
 * the break-glass reverts: episodes open in the store or recorded in the cluster's annotations
 * get their timers, overdue ones are reverted at once (server/break-glass).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installFrontDoor } = await import("@/server/http/front-door");
  installFrontDoor();
  const { endOpenStreamsOnSignals } = await import("@/server/http/shutdown");
  endOpenStreamsOnSignals();
  if (process.env.PORTCULLIS_AUDIT_LOG) {
    const { startAuditFileMode } = await import("@/server/audit/file-mode");
    startAuditFileMode();
  }
  const listen = process.env.PORTCULLIS_OTLP_LISTEN;
  if (listen) {
    const { startTraceReceiver } = await import("@/server/traces/receiver");
    await startTraceReceiver(listen);
  }
  // Any of its settings: one given without the others is reported, not ignored.
  if (Object.keys(process.env).some((k) => /^PORTCULLIS_AUDIT_(TLS|CLIENT)_/.test(k))) {
    const { startAuditTlsListener } = await import("@/server/audit/tls-listener");
    await startAuditTlsListener();
  }
  const { startBreakGlassReverts } = await import("@/server/break-glass/service");
  void startBreakGlassReverts();
}
