import { V1beta1HooksPage } from "@/components/legacy-admission/v1beta1-hooks-page";

export const metadata = { title: "v1beta1 hooks" };

export default function Page() {
  return <V1beta1HooksPage />;
}
