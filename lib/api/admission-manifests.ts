/**
 * /api/admission-manifests: the apiserver's static manifest directories as the dashboard reads
 * them (PORTCULLIS_ADMISSION_MANIFESTS): each directory's plugin, the set in force with each
 * object's file, the set's hash (compare with the apiserver's
 * `apiserver_manifest_admission_config_controller_last_config_info`) and why the files on disk do
 * not load, if they do not; and the objects ready for `withManifests`.
 */
import type { ManifestPlugin } from "@/lib/admission/model/manifests";
import type { ManifestObjects } from "@/lib/admission/model/snapshot";
import type { ManifestKind } from "@/lib/admission/model/manifests";
import { route } from "./contract";

/** One directory. */
interface ManifestDirData {
  dir: string;
  plugin: ManifestPlugin | undefined;
  /** The objects in force, by kind, name and file. */
  objects: Array<{ kind: ManifestKind; name: string; file: string }>;
  hash: string;
  error?: string;
  /** When it was last read (ms since the epoch). */
  readAt: number;
}

/** GET /api/admission-manifests */
export interface AdmissionManifestsData {
  /** False when the dashboard was given no directory: static objects can then only be inferred. */
  configured: boolean;
  /** One more on every change of any directory. */
  generation: number;
  dirs: ManifestDirData[];
  objects: ManifestObjects;
}

export const admissionManifestsRoute = route<AdmissionManifestsData>()({
  method: "GET",
  path: "/api/admission-manifests",
});
