import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { capabilities_restricted } from "./capabilities_restricted";

const checkPod = (minor: number) => {
  const v = capabilities_restricted.versions.find((x) => x.minimumVersion.minor === minor);
  if (v === undefined) throw new Error(`no version 1.${minor}`);
  return (spec: PodSpec) => v.checkPod({}, spec);
};
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "unrestricted capabilities",
  forbiddenDetail: detail,
});

describe("capabilities_restricted", () => {
  it("is the restricted check of v1.22 and v1.25, replacing capabilities_baseline", () => {
    expect(capabilities_restricted.id).toBe("capabilities_restricted");
    expect(capabilities_restricted.level).toBe("restricted");
    expect(capabilities_restricted.versions.map((v) => v.minimumVersion)).toStrictEqual([
      v1(22),
      v1(25),
    ]);
    expect(capabilities_restricted.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([
      ["capabilities_baseline"],
      ["capabilities_baseline"],
    ]);
  });

  const multiple: PodSpec = {
    containers: [
      { name: "a", securityContext: { capabilities: { add: ["FOO", "BAR"] } } },
      { name: "b", securityContext: { capabilities: { add: ["BAR", "BAZ"] } } },
      {
        name: "c",
        securityContext: {
          capabilities: { add: ["NET_BIND_SERVICE", "CHOWN"], drop: ["ALL", "FOO"] },
        },
      },
    ],
  };
  const multipleDetail =
    'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add';

  describe("v1.25", () => {
    const check = checkPod(25);
    it("multiple containers", () => {
      expect(check(multiple)).toStrictEqual(forbidden(multipleDetail));
    });
    it("windows pod, admit without checking capabilities", () => {
      expect(check({ os: { name: "windows" }, containers: [{ name: "a" }] })).toStrictEqual(
        ALLOWED,
      );
    });
    it("linux pod, reject if security context is not set", () => {
      expect(check({ os: { name: "linux" }, containers: [{ name: "a" }] })).toStrictEqual(
        forbidden('container "a" must set securityContext.capabilities.drop=["ALL"]'),
      );
    });
  });

  describe("v1.22", () => {
    const check = checkPod(22);
    it("multiple containers", () => {
      expect(check(multiple)).toStrictEqual(forbidden(multipleDetail));
    });
    it("does not exempt windows pods", () => {
      expect(check({ os: { name: "windows" }, containers: [{ name: "a" }] })).toStrictEqual(
        forbidden('container "a" must set securityContext.capabilities.drop=["ALL"]'),
      );
    });
  });

  it("admits dropping ALL and adding only NET_BIND_SERVICE", () => {
    const spec: PodSpec = {
      initContainers: [{ name: "i", securityContext: { capabilities: { drop: ["ALL"] } } }],
      containers: [
        {
          name: "c",
          securityContext: { capabilities: { drop: ["FOO", "ALL"], add: ["NET_BIND_SERVICE"] } },
        },
      ],
    };
    expect(checkPod(22)(spec)).toStrictEqual(ALLOWED);
    expect(checkPod(25)(spec)).toStrictEqual(ALLOWED);
  });

  it("matches ALL case-sensitively and lists a forbidden capability once, byte-wise sorted", () => {
    expect(
      checkPod(25)({
        initContainers: [
          { name: "i", securityContext: { capabilities: { drop: ["all"], add: ["b", "B"] } } },
        ],
        containers: [
          { name: "c", securityContext: { capabilities: { drop: ["ALL"], add: ["B", "a"] } } },
        ],
        ephemeralContainers: [{ name: "e", securityContext: {} }],
      }),
    ).toStrictEqual(
      forbidden(
        'containers "i", "e" must set securityContext.capabilities.drop=["ALL"]; containers "i", "c" must not include "B", "a", "b" in securityContext.capabilities.add',
      ),
    );
  });

  it("says container for one adding container", () => {
    expect(
      checkPod(25)({
        containers: [
          { name: "c", securityContext: { capabilities: { drop: ["ALL"], add: ["SYS_ADMIN"] } } },
        ],
      }),
    ).toStrictEqual(
      forbidden('container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add'),
    );
  });
});
