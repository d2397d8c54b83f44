import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { restrictedVolumes } from "./restrictedVolumes";

const check = (spec: PodSpec) => restrictedVolumes.versions[0]!.checkPod({}, spec);
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "restricted volume types",
  forbiddenDetail: detail,
});

describe("restrictedVolumes", () => {
  it("is the restricted check of v1.0, replacing hostPathVolumes", () => {
    expect(restrictedVolumes.id).toBe("restrictedVolumes");
    expect(restrictedVolumes.level).toBe("restricted");
    expect(restrictedVolumes.versions.map((v) => v.minimumVersion)).toStrictEqual([v1(0)]);
    expect(restrictedVolumes.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([
      ["hostPathVolumes"],
    ]);
  });

  it("host path volumes", () => {
    expect(
      check({
        volumes: [
          // allowed types
          { name: "a1", emptyDir: {} },
          { name: "a2", secret: {} },
          { name: "a3", persistentVolumeClaim: {} },
          { name: "a4", downwardAPI: {} },
          { name: "a5", configMap: {} },
          { name: "a6", projected: {} },
          { name: "a7", csi: {} },
          { name: "a8", ephemeral: {} },
          { name: "a9", image: {} },

          // known restricted types
          { name: "b1", hostPath: {} },
          { name: "b2", gcePersistentDisk: {} },
          { name: "b3", awsElasticBlockStore: {} },
          { name: "b4", gitRepo: {} },
          { name: "b5", nfs: {} },
          { name: "b6", iscsi: {} },
          { name: "b7", glusterfs: {} },
          { name: "b8", rbd: {} },
          { name: "b9", flexVolume: {} },
          { name: "b10", cinder: {} },
          { name: "b11", cephfs: {} },
          { name: "b12", flocker: {} },
          { name: "b13", fc: {} },
          { name: "b14", azureFile: {} },
          { name: "b15", vsphereVolume: {} },
          { name: "b16", quobyte: {} },
          { name: "b17", azureDisk: {} },
          { name: "b18", photonPersistentDisk: {} },
          { name: "b19", portworxVolume: {} },
          { name: "b20", scaleIO: {} },
          { name: "b21", storageos: {} },

          // unknown type
          { name: "c1" },
        ],
      }),
    ).toStrictEqual(
      forbidden(
        "volumes " +
          '"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1"' +
          " use restricted volume types " +
          '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ' +
          '"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"',
      ),
    );
  });

  it("admits only allowed sources, and a pod without volumes", () => {
    expect(
      check({
        volumes: [
          { name: "a", emptyDir: {} },
          { name: "b", csi: {} },
        ],
      }),
    ).toStrictEqual(ALLOWED);
    expect(check({})).toStrictEqual(ALLOWED);
  });

  it("says volume and uses for one volume, and lists a type once", () => {
    expect(check({ volumes: [{ name: "h", hostPath: { path: "/" } }] })).toStrictEqual(
      forbidden('volume "h" uses restricted volume type "hostPath"'),
    );
    expect(
      check({
        volumes: [
          { name: "h1", hostPath: {} },
          { name: "h2", hostPath: {} },
        ],
      }),
    ).toStrictEqual(forbidden('volumes "h1", "h2" use restricted volume type "hostPath"'));
  });

  it("reads a null or non-object source as absent, and ignores unknown fields", () => {
    expect(
      check({
        volumes: [
          { name: "n", emptyDir: null, hostPath: {} },
          { name: "u", someFutureSource: {} },
          { name: "s", secret: "x" },
        ],
      }),
    ).toStrictEqual(
      forbidden('volumes "n", "u", "s" use restricted volume types "hostPath", "unknown"'),
    );
  });

  it("allows a volume with an allowed source beside a restricted one, and names the first restricted source in Go's order", () => {
    expect(check({ volumes: [{ name: "x", hostPath: {}, emptyDir: {} }] })).toStrictEqual(ALLOWED);
    expect(check({ volumes: [{ name: "y", storageos: {}, nfs: {}, rbd: {} }] })).toStrictEqual(
      forbidden('volume "y" uses restricted volume type "nfs"'),
    );
  });
});
