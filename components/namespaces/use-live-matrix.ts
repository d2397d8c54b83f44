"use client";

import { useMemo } from "react";
import { requestOf } from "@/lib/namespaces/matrix-params";
import {
  useAdmissionState,
  type AdmissionStateSeed,
  type AdmissionStateSeedHead,
} from "./use-admission-state";
import { useMatrixModel } from "./use-matrix-model";
import { useMatrixParams } from "./use-matrix-params";

/**
 * The live exemption matrix for the URL's parameters: the cluster's admission state (kept
 * current over the watch stream), compiled once per change, and the matrix for the chosen
 * grouping label and request. `matrix` is undefined until the state and the model are loaded.
 * With `pending`, the seed's collections are still on their way and nothing is read yet.
 */
export function useLiveMatrix(seed?: AdmissionStateSeed | AdmissionStateSeedHead, pending = false) {
  const [params, setParams] = useMatrixParams();
  const state = useAdmissionState({ seed, pending });
  const model = useMatrixModel();
  const compiled = useMemo(
    () => (model && state.snapshot ? model.compile(state.snapshot) : undefined),
    [model, state.snapshot],
  );
  const request = useMemo(() => requestOf(params), [params]);
  const matrix = useMemo(
    () => (model && compiled ? model.matrix(compiled, params.groupBy, request) : undefined),
    [model, compiled, params.groupBy, request],
  );
  return { params, setParams, state, request, matrix };
}
