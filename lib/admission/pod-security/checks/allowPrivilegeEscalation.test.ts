import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { allowPrivilegeEscalation } from "./allowPrivilegeEscalation";

const checkPod = (minor: number) => {
  const v = allowPrivilegeEscalation.versions.find((x) => x.minimumVersion.minor === minor);
  if (v === undefined) throw new Error(`no version 1.${minor}`);
  return (spec: PodSpec) => v.checkPod({}, spec);
};
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "allowPrivilegeEscalation != false",
  forbiddenDetail: detail,
});

describe("allowPrivilegeEscalation", () => {
  it("is the restricted check of v1.8 and v1.25, overriding nothing", () => {
    expect(allowPrivilegeEscalation.id).toBe("allowPrivilegeEscalation");
    expect(allowPrivilegeEscalation.level).toBe("restricted");
    expect(allowPrivilegeEscalation.versions.map((v) => v.minimumVersion)).toStrictEqual([
      v1(8),
      v1(25),
    ]);
    expect(allowPrivilegeEscalation.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([
      undefined,
      undefined,
    ]);
  });

  const multiple: PodSpec = {
    containers: [
      { name: "a" },
      { name: "b", securityContext: {} },
      { name: "c", securityContext: { allowPrivilegeEscalation: true } },
      { name: "d", securityContext: { allowPrivilegeEscalation: false } },
    ],
  };

  describe("v1.25", () => {
    const check = checkPod(25);
    it("multiple containers", () => {
      expect(check(multiple)).toStrictEqual(
        forbidden(
          'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
        ),
      );
    });
    it("windows pod, admit without checking privilegeEscalation", () => {
      expect(check({ os: { name: "windows" }, containers: [{ name: "a" }] })).toStrictEqual(
        ALLOWED,
      );
    });
    it("linux pod, reject if security context is not set", () => {
      expect(check({ os: { name: "linux" }, containers: [{ name: "a" }] })).toStrictEqual(
        forbidden('container "a" must set securityContext.allowPrivilegeEscalation=false'),
      );
    });
  });

  describe("v1.8", () => {
    const check = checkPod(8);
    it("multiple containers", () => {
      expect(check(multiple)).toStrictEqual(
        forbidden(
          'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
        ),
      );
    });
    it("does not exempt windows pods", () => {
      expect(check({ os: { name: "windows" }, containers: [{ name: "a" }] })).toStrictEqual(
        forbidden('container "a" must set securityContext.allowPrivilegeEscalation=false'),
      );
    });
  });

  it("lists init, then regular, then ephemeral containers; an unnamed one as empty", () => {
    expect(
      checkPod(25)({
        ephemeralContainers: [{ name: "e" }],
        containers: [{ name: "c" }, {}],
        initContainers: [{ name: "i" }],
      }),
    ).toStrictEqual(
      forbidden(
        'containers "i", "c", "", "e" must set securityContext.allowPrivilegeEscalation=false',
      ),
    );
  });

  it("admits a pod whose containers all set false, and a pod without containers", () => {
    const ok: PodSpec = {
      initContainers: [{ name: "i", securityContext: { allowPrivilegeEscalation: false } }],
      containers: [{ name: "c", securityContext: { allowPrivilegeEscalation: false } }],
    };
    expect(checkPod(8)(ok)).toStrictEqual(ALLOWED);
    expect(checkPod(25)(ok)).toStrictEqual(ALLOWED);
    expect(checkPod(25)({})).toStrictEqual(ALLOWED);
  });
});
