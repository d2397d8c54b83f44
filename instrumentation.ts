/**
 * Runs once when the dashboard's server starts: starts the OTLP trace receiver when
 * PORTCULLIS_OTLP_LISTEN names an address (see README, "Traces").
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const listen = process.env.PORTCULLIS_OTLP_LISTEN;
  if (!listen) return;
  const { startTraceReceiver } = await import("./server/traces/receiver");
  await startTraceReceiver(listen);
}
