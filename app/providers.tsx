"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { TabContextProvider } from "@/components/layout/tab-context";
import { refetchWhileNoAnswer } from "@/lib/queries/no-answer";

/**
 * One QueryClient per browser tab, and the context the tab acts as. A query that failed because
 * the cluster did not answer is asked again by itself (lib/queries/no-answer.ts).
 */
export function Providers({
  initialContext,
  children,
}: {
  initialContext: string | undefined;
  children: ReactNode;
}) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { retry: 1, refetchOnWindowFocus: false, refetchInterval: refetchWhileNoAnswer },
        },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <TabContextProvider initial={initialContext}>{children}</TabContextProvider>
    </QueryClientProvider>
  );
}
