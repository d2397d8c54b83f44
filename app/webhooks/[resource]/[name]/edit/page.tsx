import { notFound } from "next/navigation";
import { StaticObjectPage } from "@/components/outside-api/static-object-page";
import { hasStaticSuffix } from "@/lib/admission/model/manifests";
import { isWebhookResource } from "@/lib/webhooks/resource-kinds";
import { parseProposedPatch } from "@/lib/webhooks/proposed-patch";
import { EditRoute } from "@/components/editor/edit-route";
import { titleFromName } from "@/lib/page-title";

export const generateMetadata = titleFromName((name) => `Edit ${name}`);

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ resource: string; name: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { resource, name } = await params;
  if (!isWebhookResource(resource)) notFound();
  // Loaded from a manifest file, refused by the API under its reserved name: read-only.
  if (hasStaticSuffix(decodeURIComponent(name)))
    return <StaticObjectPage resource={resource} name={decodeURIComponent(name)} edit />;
  const q = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);
  const proposal = parseProposedPatch(one(q.patch));
  const restore = Number(one(q.restore));
  return (
    <EditRoute
      target={{
        mode: "edit",
        resource,
        name: decodeURIComponent(name),
        ...(proposal ? { proposal: { ...proposal, why: (one(q.why) ?? "").slice(0, 500) } } : {}),
        ...(Number.isSafeInteger(restore) && restore > 0 ? { restore } : {}),
      }}
    />
  );
}
