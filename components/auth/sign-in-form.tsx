"use client";

import { useState, type FormEvent } from "react";
import { ErrorBox } from "@/components/ui/error-box";
import { OidcButton } from "./oidc-button";
import { signIn } from "@/lib/queries/session";

/**
 * Shared mode's sign-in: through the cluster's OIDC issuer when configured, or with a Kubernetes
 * bearer token pasted into a password field. A token is sent once, to the dashboard's server,
 * which keeps it; this page drops it from memory as soon as it is sent.
 */
export function SignInForm({ oidc }: { oidc: boolean }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const sent = token;
    setToken("");
    try {
      await signIn(sent);
      // A full load, not a client-side push: every query and the tab context start over as the
      // new user.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination
      window.location.href = "/";
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      setBusy(false);
    }
  }

  return (
    <form className="panel sign-in" onSubmit={(e) => void submit(e)}>
      <h1>Sign in</h1>
      <p className="muted">
        Every request this dashboard makes for you runs as your own Kubernetes user: the
        apiserver&apos;s RBAC decides what you see and change.
      </p>
      {oidc && (
        <>
          <OidcButton />
          <p className="hint">Or paste a token:</p>
        </>
      )}
      <label htmlFor="token">Bearer token</label>
      <input
        id="token"
        name="token"
        type="password"
        autoComplete="off"
        spellCheck={false}
        required
        value={token}
        onChange={(e) => setToken(e.target.value)}
      />
      <p className="hint">
        For example <code className="mono">kubectl create token NAME</code>, or your
        kubeconfig&apos;s token. It is kept on the dashboard&apos;s server for this session only,
        encrypted, and never shown again.
      </p>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || token === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </div>
      {error && <ErrorBox error={error} />}
    </form>
  );
}
