import { notFound } from "next/navigation";
import { StaticObjectPage } from "@/components/outside-api/static-object-page";
import { hasStaticSuffix } from "@/lib/admission/model/manifests";
import { isPolicyResource } from "@/lib/webhooks/resource-kinds";
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
  if (!isPolicyResource(resource)) notFound();
  // Loaded from a manifest file, refused by the API under its reserved name: read-only.
  if (hasStaticSuffix(decodeURIComponent(name)))
    return <StaticObjectPage resource={resource} name={decodeURIComponent(name)} edit />;
  // ?restore=<id>: a stored version from the change history, opened as a proposed edit.
  const raw = (await searchParams).restore;
  const restore = Number(typeof raw === "string" ? raw : undefined);
  return (
    <EditRoute
      target={{
        mode: "edit",
        resource,
        name: decodeURIComponent(name),
        ...(Number.isSafeInteger(restore) && restore > 0 ? { restore } : {}),
      }}
    />
  );
}
