import { ExternalHooksPage } from "@/components/legacy-admission/external-hooks-page";

export const metadata = { title: "External admission hooks" };

export default function Page() {
  return <ExternalHooksPage />;
}
