/**
 * Calling a shared-mode dashboard's API from Node as its own pages would: Fetch Metadata, the
 * shared context, and the session cookie when signed in.
 */
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { policyHeaders } from "./api-headers";

export interface SharedCall {
  /** The Cookie header value (`__Host-portcullis-session=…`). */
  cookie?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function sharedCall(
  base: string,
  method: string,
  path: string,
  o: SharedCall = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...policyHeaders(SHARED_CONTEXT),
      ...(o.cookie ? { cookie: o.cookie } : {}),
      ...(o.body !== undefined ? { "content-type": "application/json" } : {}),
      ...o.headers,
    },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
}

/** The cookie a sign-in response sets, as the browser sends it back ("" when none). */
export function sessionCookieOf(res: Response): string {
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
