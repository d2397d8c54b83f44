"use client";

import { useState } from "react";
import { ErrorBox } from "@/components/ui/error-box";
import { startOidcSignIn } from "@/lib/queries/session";

/** Starts an OIDC sign-in: the server prepares it, then the browser goes to the issuer. */
export function OidcButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();

  async function start() {
    setBusy(true);
    setError(undefined);
    try {
      const { authorizationUrl } = await startOidcSignIn();
      window.location.assign(authorizationUrl);
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      setBusy(false);
    }
  }

  return (
    <div className="oidc">
      <button type="button" className="primary" onClick={() => void start()} disabled={busy}>
        {busy ? "Going to the sign-in page…" : "Sign in with OIDC"}
      </button>
      {error && <ErrorBox error={error} />}
    </div>
  );
}
