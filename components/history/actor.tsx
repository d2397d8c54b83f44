import type { ChangeRecord } from "@/lib/admission/history/changes";
import { UNKNOWN_ACTOR } from "@/lib/admission/history/timeline";
import styles from "./history.module.css";

/** Who made a change: user, impersonator, groups and user agent, or that the watch cannot say. */
export function Actor({ change, detail = false }: { change: ChangeRecord; detail?: boolean }) {
  const a = change.actor;
  if (!a)
    return (
      <span className={styles.unknown} data-testid="actor">
        {UNKNOWN_ACTOR}
      </span>
    );
  return (
    <span data-testid="actor">
      <span className={styles.who}>{a.user}</span>
      {a.impersonator ? <span className="muted"> impersonated by {a.impersonator}</span> : null}
      {detail ? (
        <>
          {a.groups.length > 0 ? (
            <span className="muted"> · groups {a.groups.join(", ")}</span>
          ) : null}
          {a.userAgent ? <span className="muted mono"> · {a.userAgent}</span> : null}
        </>
      ) : null}
    </span>
  );
}

/** The kubeconfig context a change was seen through, or that it is not known. */
export function ChangeContext({ change }: { change: Pick<ChangeRecord, "context" | "source"> }) {
  if (change.context) return <span className="mono">{change.context}</span>;
  return (
    <span
      className="muted"
      title="Set PORTCULLIS_DECISIONS_CONTEXT to name the audit events' context"
    >
      {change.source === "manifest" ? "manifest file" : "unknown"}
    </span>
  );
}
