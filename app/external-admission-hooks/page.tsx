import { ExternalHooksPage } from "@/components/legacy-admission/external-hooks-page";

export default function Page() {
  return <ExternalHooksPage />;
}
