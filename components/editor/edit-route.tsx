"use client";

import dynamic from "next/dynamic";
import type { EditorTarget } from "./editor-loader";

/** Monaco is loaded only here, in the browser, when an edit page opens. */
const EditorLoader = dynamic(() => import("./editor-loader"), {
  ssr: false,
  loading: () => (
    <p className="muted" aria-busy="true">
      Loading the editor…
    </p>
  ),
});

export function EditRoute({ target }: { target: EditorTarget }) {
  return <EditorLoader target={target} />;
}
