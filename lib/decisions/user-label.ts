import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import { visibleText } from "./visible-text";

/**
 * A request's user as the feed's narrow User column shows it (pure). A ServiceAccount's user name
 * (`system:serviceaccount:<namespace>:<name>`) starts with the same 21 characters for every
 * controller, so the cell would show only that; it leads with the account's name instead.
 * Every other user is shown as it is, bidirectional controls written out (see visibleText). The
 * full name stays in the cell's title.
 */
export function userLabel(user: string): string {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  return visibleText(m ? `${m[2]} (SA, ${m[1]})` : user);
}

/**
 * What the decision drawer adds after a request's user when another user sent it impersonating
 * that one (admission saw the impersonated user), or undefined.
 */
export function impersonationNote(
  req: Pick<AuditRequestFacts, "impersonatedBy">,
): string | undefined {
  return req.impersonatedBy === undefined
    ? undefined
    : `impersonated by ${visibleText(req.impersonatedBy)}`;
}
