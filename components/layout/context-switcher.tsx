"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { contextsQuery, selectContext } from "@/lib/queries/contexts";
import { queryKeys } from "@/lib/queries/keys";

/** Chooses the kubeconfig context (identity) the dashboard acts as in this browser. */
export function ContextSwitcher() {
  const queryClient = useQueryClient();
  const { data, error } = useQuery(contextsQuery());
  const switchTo = useMutation({
    mutationFn: selectContext,
    // Every other key includes the context, so refreshing the current context is enough:
    // nothing cached for the old identity is shown for the new one.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.contexts() }),
  });
  if (error) return <span className="muted">no kubeconfig</span>;
  if (!data) return null;
  return (
    <label>
      Context
      <select
        value={data.current}
        disabled={switchTo.isPending}
        onChange={(e) => switchTo.mutate(e.target.value)}
      >
        {data.contexts.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}
