"use client";

import { useEffect, useRef, useState } from "react";
import { ErrorBox } from "@/components/ui/error-box";
import { completeOidcSignIn } from "@/lib/queries/session";
import type { OidcCallbackParams } from "@/lib/api/session";

/** What the issuer's redirect put in this page's query string; undefined without a state. */
function callbackParams(search: string): OidcCallbackParams | undefined {
  const q = new URLSearchParams(search);
  const state = q.get("state");
  if (!state) return undefined;
  const opt = (name: string) => q.get(name) ?? undefined;
  return {
    state,
    code: opt("code"),
    error: opt("error"),
    errorDescription: opt("error_description"),
  };
}

/**
 * Where the OIDC issuer sends the browser back (/sign-in/oidc?code=…&state=…). The page posts
 * what it carried to the dashboard's server, which completes the sign-in, then loads the
 * dashboard. The code leaves the address bar (and the history) at once.
 */
export function OidcCallback() {
  const [error, setError] = useState<Error | undefined>();
  const sent = useRef(false);

  useEffect(() => {
    // Once per page load (React's development mode runs effects twice): the code is single-use.
    if (sent.current) return;
    sent.current = true;
    const params = callbackParams(window.location.search);
    window.history.replaceState(null, "", "/sign-in/oidc");
    const done = params
      ? completeOidcSignIn(params)
      : Promise.reject(
          new Error("the issuer's answer is missing (no state): start again from the sign-in page"),
        );
    done
      .then(() => {
        // A full load: every query starts over as the signed-in user.
        // eslint-disable-next-line @next/next/no-location-assign-relative-destination
        window.location.href = "/";
      })
      .catch((err: unknown) => setError(err instanceof Error ? err : new Error(String(err))));
  }, []);

  return (
    <div className="panel sign-in">
      <h1>Sign in</h1>
      {error ? (
        <>
          <ErrorBox error={error} />
          <p>
            <a href="/sign-in">Back to sign-in</a>
          </p>
        </>
      ) : (
        <p className="muted" role="status">
          Completing the sign-in…
        </p>
      )}
    </div>
  );
}
