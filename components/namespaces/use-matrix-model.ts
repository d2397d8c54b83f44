"use client";

import { useEffect, useState } from "react";
import type * as Model from "@/lib/namespaces/matrix-model";

let loaded: typeof Model | undefined;

/** The matrix model module, loaded on first use (it carries the CEL compiler). */
export function useMatrixModel(): typeof Model | undefined {
  const [mod, setMod] = useState(loaded);
  useEffect(() => {
    if (mod) return;
    let cancelled = false;
    void import("@/lib/namespaces/matrix-model").then((m) => {
      loaded = m;
      if (!cancelled) setMod(m);
    });
    return () => {
      cancelled = true;
    };
  }, [mod]);
  return mod;
}
