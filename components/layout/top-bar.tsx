"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { ContextSwitcher } from "./context-switcher";
import { SessionMenu } from "@/components/auth/session-menu";
import { useTabContext } from "./tab-context";
import { overviewQuery } from "@/lib/queries/overview";
import { servedKinds } from "@/lib/k8s/served-kinds";
import { servedV1beta1HookKinds } from "@/lib/k8s/v1beta1-hooks";

const NAV = [
  { href: "/", label: "Overview" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/policies", label: "Policies" },
  { href: "/webhooks/order", label: "Call order" },
  { href: "/namespaces", label: "Namespaces" },
  { href: "/deadlocks", label: "Deadlocks" },
  { href: "/health", label: "Health" },
  { href: "/predict", label: "Predict" },
  { href: "/decisions", label: "Decisions" },
  { href: "/changes", label: "Changes" },
  { href: "/engines", label: "Engines" },
  { href: "/fleet", label: "Fleet" },
];

/** Pages of kinds only some clusters serve: linked only when discovery finds the kind. */
const SERVED_ONLY = [
  { href: "/initializers", label: "Initializers", kind: "InitializerConfiguration" },
  {
    href: "/external-admission-hooks",
    label: "External hooks",
    kind: "ExternalAdmissionHookConfiguration",
  },
];

/** `shared`: the dashboard runs in shared mode (a signed-in user instead of a context switcher). */
export function TopBar({ shared = false }: { shared?: boolean }) {
  const pathname = usePathname();
  // The sign-in pages (/sign-in, and /sign-in/oidc where the issuer sends the browser back) run
  // before there is a session: nothing there may ask the API for cluster data.
  const signingIn = shared && (pathname === "/sign-in" || pathname.startsWith("/sign-in/"));
  const { context } = useTabContext();
  const overview = useQuery({
    ...overviewQuery(context ?? ""),
    enabled: context !== undefined && !signingIn,
  });
  const served = new Set(
    servedKinds(overview.data?.apis ?? [])
      .filter((k) => k.readAt)
      .map((k) => k.known.kind),
  );
  const v1beta1 = servedV1beta1HookKinds(overview.data?.apis ?? []).length > 0;
  const nav = [
    ...NAV,
    ...SERVED_ONLY.filter((n) => served.has(n.kind)),
    // v1beta1 webhook configurations (1.9–1.21, or the legacy group's custom resources).
    ...(v1beta1 ? [{ href: "/legacy-webhooks", label: "v1beta1 hooks" }] : []),
  ];
  return (
    <header className="topbar">
      <span className="brand">Portcullis</span>
      <nav aria-label="Main">
        {!signingIn &&
          nav.map((n) => (
            <Link
              key={n.href}
              href={n.href}
              aria-current={pathname === n.href ? "page" : undefined}
            >
              {n.label}
            </Link>
          ))}
      </nav>
      {shared ? !signingIn && <SessionMenu /> : <ContextSwitcher />}
    </header>
  );
}
