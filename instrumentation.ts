/**
 * Runs once when a dashboard server process starts: begins following the apiserver's audit log
 * file when PORTCULLIS_AUDIT_LOG is set (file mode, for clusters without the audit webhook).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || !process.env.PORTCULLIS_AUDIT_LOG) return;
  const { startAuditFileMode } = await import("@/server/audit/file-mode");
  startAuditFileMode();
}
