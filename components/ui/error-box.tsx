import { ApiError } from "@/lib/api/client";
import { isNoAnswer } from "@/lib/k8s/errors";
import { IMPERSONATION_REFUSED, INVALID_TOKEN, SESSION_REQUIRED } from "@/lib/auth/session-cookie";

/** What an admin can do next about a failure with this HTTP status (0: no answer at all). */
function nextStep(status: number | undefined, reason?: string): string {
  if (reason === INVALID_TOKEN)
    return "Paste a current token of your own: `kubectl create token NAME` makes one for a service account; a kubeconfig's user token works too.";
  if (reason === IMPERSONATION_REFUSED)
    return "The dashboard runs in impersonation mode, and its service account needs impersonate on users, groups and serviceaccounts to act as you (the chart's impersonation.enabled=true grants them): ask whoever runs the dashboard.";
  if (reason === SESSION_REQUIRED) return "Your session has ended: sign in again.";
  if (reason?.startsWith("Oidc") || reason === "InvalidIdToken")
    return "The OIDC sign-in did not complete: start it again from the sign-in page. If it keeps failing, the message above names what the issuer, or the dashboard's PORTCULLIS_OIDC_* settings, must change.";
  if (status === 401)
    return "The apiserver does not accept this context's credentials: refresh them in the kubeconfig (an expired token or client certificate), then reload.";
  if (status === 403)
    return "This context's user lacks the RBAC permission: pick another context in the top bar, or ask for a grant (kubectl auth can-i lists what it may do).";
  if (status === 404)
    return "It is not there (any more): it may have been deleted or renamed. Go back to the list.";
  if (status === 409)
    return "Someone changed it meanwhile: reload to see the stored version, then apply again.";
  if (status === 400 || status === 422)
    return "The request was refused as invalid: the message above names the field.";
  if (status !== undefined && status !== 0 && status !== 502 && status !== 503 && status !== 504)
    return "The apiserver reported a failure (the message above says where, often an admission webhook): retry, and read the apiserver's log if it persists.";
  if (isNoAnswer({ reason }))
    return "The cluster did not answer: check that it runs and that the kubeconfig points at it (kubectl cluster-info). The page asks again by itself, and fills in once it answers.";
  return "The cluster did not answer: check that it runs and that the kubeconfig points at it (kubectl cluster-info), then reload. Live pages reconnect by themselves.";
}

/**
 * An API failure as the apiserver put it: status, reason, message — and what to do next.
 * 403 is named as such, and a cluster that did not answer as "No answer".
 */
export function ErrorBox({ error }: { error: Error }) {
  const status = error instanceof ApiError ? error.status : undefined;
  const reason = error instanceof ApiError ? error.reason : "Error";
  return (
    <div className="alert" role="alert">
      <strong>
        {status === 403
          ? "Forbidden by the apiserver"
          : status === 409
            ? "Conflict"
            : error instanceof ApiError && isNoAnswer(error)
              ? "No answer"
              : "Refused"}
      </strong>{" "}
      <span className="badge">{status ?? "—"}</span>
      <span className="badge">{reason}</span> {error.message}
      <p className="hint">{nextStep(status, reason)}</p>
    </div>
  );
}
