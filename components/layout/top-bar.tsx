"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { ContextSwitcher } from "./context-switcher";

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
];

export function TopBar() {
  const pathname = usePathname();
  return (
    <header className="topbar">
      <span className="brand">Portcullis</span>
      <nav aria-label="Main">
        {NAV.map((n) => (
          <Link key={n.href} href={n.href} aria-current={pathname === n.href ? "page" : undefined}>
            {n.label}
          </Link>
        ))}
      </nav>
      <ContextSwitcher />
    </header>
  );
}
