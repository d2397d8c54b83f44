import "server-only";
import path from "node:path";
import { decisionStore, storeDecisions } from "@/server/decisions/instance";
import { recordChanges } from "@/server/history/ingest";
import { AuditLogFollower } from "./file-follower";

const g = globalThis as typeof globalThis & { portcullisAuditFollower?: AuditLogFollower };

/** The audit log file mode follows (PORTCULLIS_AUDIT_LOG), or undefined when it is off. */
function auditLogFile(source: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = source.PORTCULLIS_AUDIT_LOG?.trim();
  return file ? path.resolve(/*turbopackIgnore: true*/ file) : undefined;
}

/**
 * Starts file mode once per dashboard process when PORTCULLIS_AUDIT_LOG names the apiserver's
 * `--audit-log-path`: the one follower stores into the decision store, whose live subscribers
 * (every open feed) see what it reads. Returns the running follower, or undefined when off.
 */
export function startAuditFileMode(): AuditLogFollower | undefined {
  const file = auditLogFile();
  if (!file) return undefined;
  if (g.portcullisAuditFollower) return g.portcullisAuditFollower;
  let lastReport = 0;
  const follower = new AuditLogFollower({
    file,
    sink: {
      cursor: async (name) => (await decisionStore()).cursor(name),
      store: async (events, cursor, changes) => {
        await recordChanges(changes ?? []);
        await storeDecisions(events, cursor);
      },
    },
    onError: (message) => {
      // A hostile or broken log must not flood the server's own log: one line every 10 s at most.
      const now = Date.now();
      if (now - lastReport < 10_000) return;
      lastReport = now;
      console.warn(`portcullis: ${message}`);
    },
  });
  g.portcullisAuditFollower = follower;
  follower.start();
  return follower;
}

/** The running follower (undefined when file mode is off): the test hooks wait on its progress. */
export function auditFileModeFollower(): AuditLogFollower | undefined {
  return g.portcullisAuditFollower;
}
