import type { Metadata } from "next";

/**
 * generateMetadata for a page of one named object: its title from the `name` path parameter
 * (percent-decoded; the request policy has refused paths that do not decode). The layout's
 * template adds " · Portcullis".
 */
export function titleFromName(
  format: (name: string) => string,
): (props: { params: Promise<{ name: string }> }) => Promise<Metadata> {
  return async ({ params }) => ({ title: format(decodeURIComponent((await params).name)) });
}
