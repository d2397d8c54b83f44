import { ApiError } from "@/lib/queries/fetch";

/** An API failure as the apiserver put it: status, reason, message. 403 is named as such. */
export function ErrorBox({ error }: { error: Error }) {
  const status = error instanceof ApiError ? error.status : undefined;
  const reason = error instanceof ApiError ? error.reason : "Error";
  return (
    <div className="alert" role="alert">
      <strong>
        {status === 403 ? "Forbidden by the apiserver" : status === 409 ? "Conflict" : "Refused"}
      </strong>{" "}
      <span className="badge">{status ?? "—"}</span>
      <span className="badge">{reason}</span> {error.message}
    </div>
  );
}
