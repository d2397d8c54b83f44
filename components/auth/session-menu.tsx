"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { sessionQuery, signOut } from "@/lib/queries/session";

/** Shared mode's top-bar corner: who this session acts as, and sign-out. */
export function SessionMenu() {
  const { data } = useQuery(sessionQuery());
  const [leaving, setLeaving] = useState(false);
  async function leave() {
    setLeaving(true);
    try {
      await signOut();
    } finally {
      // A full load, not a client-side push: this user's query cache and tab state go with the page.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination
      window.location.href = "/sign-in";
    }
  }
  return (
    <span className="session">
      {data && (
        <span title={data.groups.join(", ")}>
          Signed in as <strong>{data.username}</strong>
          {data.signedInWith === "oidc" && " via OIDC"}
        </span>
      )}
      <button type="button" onClick={() => void leave()} disabled={leaving}>
        Sign out
      </button>
    </span>
  );
}
