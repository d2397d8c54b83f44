import { SignInForm } from "@/components/auth/sign-in-form";
import { oidcConfigured } from "@/server/auth/oidc";

export const metadata = { title: "Sign in" };

// The server's environment decides whether OIDC sign-in is offered.
export const dynamic = "force-dynamic";

export default function Page() {
  return <SignInForm oidc={oidcConfigured()} />;
}
