"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { readParams, writeParams, type MatrixParams } from "@/lib/namespaces/matrix-params";

/**
 * The exemption views' parameters, kept in the URL. A change replaces the history entry in
 * place (Next's router follows it): the views compute everything in the browser, so asking the
 * server to render the page again for each keystroke in a filter would only re-send its data.
 */
export function useMatrixParams(): [MatrixParams, (next: Partial<MatrixParams>) => void] {
  const search = useSearchParams();
  const pathname = usePathname();
  const params = useMemo(() => readParams(new URLSearchParams(search.toString())), [search]);
  const setParams = useCallback(
    (next: Partial<MatrixParams>) =>
      window.history.replaceState(null, "", `${pathname}${writeParams({ ...params, ...next })}`),
    [params, pathname],
  );
  return [params, setParams];
}
