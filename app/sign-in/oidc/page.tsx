import { OidcCallback } from "@/components/auth/oidc-callback";

export const metadata = { title: "Sign in" };

export default function Page() {
  return <OidcCallback />;
}
