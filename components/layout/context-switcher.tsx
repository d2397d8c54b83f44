"use client";

import { useQuery } from "@tanstack/react-query";
import { contextsQuery } from "@/lib/queries/contexts";
import { useTabContext } from "./tab-context";

/**
 * Chooses the kubeconfig context (identity) this tab acts as. Other tabs keep theirs; new tabs
 * start from the last choice.
 */
export function ContextSwitcher() {
  const { data, error } = useQuery(contextsQuery());
  const { context, setContext } = useTabContext();
  if (error) return <span className="muted">no kubeconfig</span>;
  if (!data || !context) return null;
  return (
    <label>
      Context
      <select value={context} onChange={(e) => setContext(e.target.value)}>
        {data.contexts.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}
