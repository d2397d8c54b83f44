"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { readParams, writeParams, type MatrixParams } from "@/lib/namespaces/matrix-params";

/** The exemption views' parameters, kept in the URL. */
export function useMatrixParams(): [MatrixParams, (next: Partial<MatrixParams>) => void] {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const params = useMemo(() => readParams(new URLSearchParams(search.toString())), [search]);
  const setParams = useCallback(
    (next: Partial<MatrixParams>) =>
      router.replace(`${pathname}${writeParams({ ...params, ...next })}`, { scroll: false }),
    [params, router, pathname],
  );
  return [params, setParams];
}
