/**
 * Which collections the dashboard's generic resource routes may read, and how their paths are
 * built. Pure: used by route handlers, the query keys and the live-update stream.
 */
import { ADMISSION_GROUP } from "./admission-apis";

/** A collection of a group/version/resource. `group` is "" for the core group. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

const CORE_READABLE = new Set(["namespaces", "services", "endpoints"]);
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * True when the dashboard may list/watch this collection (cluster-wide). `legacyGroup`, when
 * configured, is read like admissionregistration.k8s.io (see lib/k8s/legacy-group.ts).
 */
export function isReadableCollection(r: ResourceRef, legacyGroup?: string): boolean {
  if (!NAME.test(r.version) || !NAME.test(r.resource)) return false;
  if (r.group === ADMISSION_GROUP) return true;
  if (legacyGroup !== undefined && r.group === legacyGroup) return true;
  if (r.group === "") return CORE_READABLE.has(r.resource);
  if (r.group === "discovery.k8s.io") return r.resource === "endpointslices";
  return false;
}

/** The apiserver path of the collection. */
export function collectionPath(r: ResourceRef): string {
  return r.group === ""
    ? `/api/${r.version}/${r.resource}`
    : `/apis/${r.group}/${r.version}/${r.resource}`;
}

/** "group/version/resource" with "core" for the core group: the form used in URLs and stream keys. */
export function refToString(r: ResourceRef): string {
  return `${r.group === "" ? "core" : r.group}/${r.version}/${r.resource}`;
}

/** Parses refToString's form; undefined when malformed. */
export function parseRef(s: string): ResourceRef | undefined {
  const parts = s.split("/");
  if (parts.length !== 3) return undefined;
  const [g, version, resource] = parts as [string, string, string];
  return { group: g === "core" ? "" : g, version, resource };
}
