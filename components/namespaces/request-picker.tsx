"use client";

import {
  changeRequest,
  MATRIX_RESOURCES,
  OPERATIONS,
  type MatrixParams,
} from "@/lib/namespaces/matrix-params";

/**
 * The request (resource and operation) an exemption view is for. CONNECT goes with the
 * subresources it reaches: choosing one half moves the other along (see changeRequest).
 */
export function RequestPicker({
  params,
  onChange,
}: {
  params: MatrixParams;
  onChange: (next: Partial<MatrixParams>) => void;
}) {
  return (
    <>
      <label>
        Request
        <select
          value={params.resource}
          onChange={(e) => onChange(changeRequest(params, { resource: e.target.value }))}
        >
          {MATRIX_RESOURCES.map((r) => (
            <option key={r.key} value={r.key}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Operation
        <select
          value={params.operation}
          onChange={(e) =>
            onChange(
              changeRequest(params, { operation: e.target.value as MatrixParams["operation"] }),
            )
          }
        >
          {OPERATIONS.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </label>
    </>
  );
}
