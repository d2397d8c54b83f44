"use client";

import Link from "next/link";
import { useState } from "react";
import type { WebhookListPreview as Preview } from "@/lib/webhooks/list-preview";
import { ListToolbar } from "./list-toolbar";
import { HookTable } from "./hook-table";

const ignore = () => {};

/**
 * The webhook list's first screen from the server (lib/webhooks/list-preview.ts), in the
 * list's own markup: shown while the seed for the live list streams in behind it, then replaced.
 */
export function WebhooksListPreview({ preview }: { preview: Preview }) {
  const [now] = useState(() => Date.now());
  return (
    <>
      <div className="page-head">
        <h1>
          Webhooks{" "}
          <span className="live" data-state="connecting">
            connecting
          </span>
        </h1>
        <span className="muted">
          {preview.kinds.map((k) => `${k.count} ${k.kind}`).join(" · ")}
        </span>
        <span className="spacer" />
        <Link href="/webhooks/order">Call order</Link>
      </div>
      <ListToolbar
        state={preview.state}
        kinds={preview.kinds.map((k) => k.kind)}
        onChange={ignore}
        shown={preview.shown}
        total={preview.total}
      />
      <HookTable
        rows={preview.rows}
        state={preview.state}
        findings={{}}
        findingsPending
        onSort={ignore}
        now={now}
      />
    </>
  );
}
