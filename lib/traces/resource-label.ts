/** How a traced webhook call names its resource, for display. Pure. */
import { refToString } from "@/lib/k8s/resources";

/**
 * A span's resource in the dashboard's own form ("core/v1/pods", "apps/v1/deployments/scale"):
 * the apiserver prints a GroupVersionResource as Go's String() does, "<group>/<version>,
 * Resource=<resource>" ("/v1, Resource=pods" for the core group). Anything else is shown as it is.
 */
export function spanResourceLabel(resource: string, subresource: string): string {
  const m = /^([^/,]*)\/([^/,]*), Resource=([^,]+)$/.exec(resource);
  const base = m
    ? refToString({ group: m[1] ?? "", version: m[2] ?? "", resource: m[3] ?? "" })
    : resource;
  return subresource ? `${base}/${subresource}` : base;
}
