import { goSetList } from "../go-sets";
import {
  ALLOWED,
  joinQuote,
  pluralize,
  v1,
  type Check,
  type CheckResult,
  type PodMeta,
  type PodSpec,
  type Volume,
} from "../types";

/** The inline volume sources the restricted profile allows (JSON field names). */
const allowedVolumeSources: readonly string[] = [
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "image",
  "persistentVolumeClaim",
  "projected",
  "secret",
];

/** The sources it names when refusing, in the order Go tests them (JSON field names). */
const restrictedVolumeSources: readonly string[] = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

/** A non-nil source pointer: the field holds an object (null, absent or another type is nil). */
function hasSource(volume: Volume, field: string): boolean {
  const v = volume[field];
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `restrictedVolumes`: only configMap, csi, downwardAPI, emptyDir, ephemeral, image,
 * persistentVolumeClaim, projected and secret volumes; a volume with none of the known sources is
 * of type "unknown". Replaces `hostPathVolumes`.
 */
function restrictedVolumes_1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badVolumes: string[] = [];
  const badVolumeTypes: string[] = [];

  for (const volume of spec.volumes ?? []) {
    if (allowedVolumeSources.some((field) => hasSource(volume, field))) continue;
    badVolumes.push(volume.name ?? "");
    badVolumeTypes.push(
      restrictedVolumeSources.find((field) => hasSource(volume, field)) ?? "unknown",
    );
  }

  if (badVolumes.length > 0) {
    const types = goSetList(badVolumeTypes);
    return {
      allowed: false,
      forbiddenReason: "restricted volume types",
      forbiddenDetail: `${pluralize("volume", "volumes", badVolumes.length)} ${joinQuote(badVolumes)} ${pluralize("uses", "use", badVolumes.length)} ${pluralize("restricted volume type", "restricted volume types", types.length)} ${joinQuote(types)}`,
    };
  }
  return ALLOWED;
}

export const restrictedVolumes: Check = {
  id: "restrictedVolumes",
  level: "restricted",
  versions: [
    {
      minimumVersion: v1(0),
      checkPod: restrictedVolumes_1_0,
      overrideCheckIDs: ["hostPathVolumes"],
    },
  ],
};
