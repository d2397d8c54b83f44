import { Suspense } from "react";
import { PoliciesListPage } from "@/components/policies/policies-list-page";
import { POLICY_TEMPLATES } from "@/lib/policies/templates";

export const metadata = { title: "Policies" };

// Binding templates are offered after their policy is created, not in the menu.
const TEMPLATE_MENU = POLICY_TEMPLATES.filter((t) => !t.resource.endsWith("bindings")).map(
  ({ id, title, description }) => ({ id, title, description }),
);

export default function Page() {
  return (
    <Suspense fallback={<h1>Admission policies</h1>}>
      <PoliciesListPage templates={TEMPLATE_MENU} />
    </Suspense>
  );
}
