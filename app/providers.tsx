"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { TabContextProvider } from "@/components/layout/tab-context";

/** One QueryClient per browser tab, and the context the tab acts as. */
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
        defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <TabContextProvider initial={initialContext}>{children}</TabContextProvider>
    </QueryClientProvider>
  );
}
