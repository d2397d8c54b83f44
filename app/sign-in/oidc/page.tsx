import { OidcCallback } from "@/components/auth/oidc-callback";

export default function Page() {
  return <OidcCallback />;
}
