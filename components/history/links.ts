import { HISTORY_RESOURCES, type HistoryKind } from "@/lib/admission/history/kinds";
import { objectPagePath, type AdmissionResource } from "@/lib/webhooks/resource-kinds";

/** The timeline page of one admission object. */
export function timelineHref(kind: HistoryKind, name: string): string {
  return `/history/${kind}/${encodeURIComponent(name)}`;
}

/** The object's own page. */
export function objectHref(kind: HistoryKind, name: string): string {
  return objectPagePath(HISTORY_RESOURCES[kind] as AdmissionResource, name);
}

/** The editor, opening a stored version as a proposed edit of the object as it is now. */
export function restoreHref(kind: HistoryKind, name: string, changeId: number): string {
  return `${objectHref(kind, name)}/edit?restore=${changeId}`;
}

/** The editor, creating the object again from a stored version (its last known state). */
export function recreateHref(kind: HistoryKind, changeId: number): string {
  const resource = HISTORY_RESOURCES[kind] as AdmissionResource;
  return `${objectPagePath(resource)}/new?restore=${changeId}&resource=${resource}`;
}
