import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { Providers } from "./providers";
import { TopBar } from "@/components/layout/top-bar";
import { BreakGlassBanner } from "@/components/break-glass/banner";
import { startingContext } from "@/server/kube/identity";
import { isSharedMode } from "@/server/kube/config";
import "./globals.css";

export const metadata: Metadata = {
  // Each page names itself first, so tabs and history tell pages apart.
  title: { default: "Portcullis", template: "%s · Portcullis" },
  description: "Kubernetes admission control dashboard",
  // Files in public/ (drawn once in favicon.svg; scripts/icons.ts renders the rest).
  icons: {
    icon: [
      { url: "/favicon.svg", type: "image/svg+xml" },
      { url: "/favicon.ico", sizes: "32x32" },
    ],
    apple: "/apple-touch-icon.png",
  },
  manifest: "/manifest.webmanifest",
};

/** Where this tab starts; undefined without a kubeconfig (the pages then say so). */
async function initialContext(): Promise<string | undefined> {
  try {
    return startingContext(await headers());
  } catch {
    return undefined;
  }
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Rendered per request (it reads the request's headers), so every page gets the CSP nonce.
  const initial = await initialContext();
  return (
    <html lang="en">
      <body>
        <Providers initialContext={initial}>
          <TopBar shared={isSharedMode()} />
          <BreakGlassBanner shared={isSharedMode()} />
          <main>{children}</main>
        </Providers>
      </body>
    </html>
  );
}
