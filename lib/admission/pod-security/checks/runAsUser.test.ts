import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { runAsUser } from "./runAsUser";

const checkPod = (minor: number) => {
  const v = runAsUser.versions.find((x) => x.minimumVersion.minor === minor);
  if (v === undefined) throw new Error(`no version 1.${minor}`);
  return (spec: PodSpec) => v.checkPod({}, spec);
};
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "runAsUser=0",
  forbiddenDetail: detail,
});

describe("runAsUser", () => {
  it("is the restricted check of v1.23 and v1.35, overriding nothing", () => {
    expect(runAsUser.id).toBe("runAsUser");
    expect(runAsUser.level).toBe("restricted");
    expect(runAsUser.versions.map((v) => v.minimumVersion)).toStrictEqual([v1(23), v1(35)]);
    expect(runAsUser.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([undefined, undefined]);
  });

  // The apiserver's table, run against v1.35.
  const cases: { name: string; spec: PodSpec; expected: object }[] = [
    {
      name: "pod runAsUser=0",
      spec: { securityContext: { runAsUser: 0 }, containers: [{ name: "a" }] },
      expected: forbidden("pod must not set runAsUser=0"),
    },
    {
      name: "pod runAsUser=non-zero",
      spec: { securityContext: { runAsUser: 1000 }, containers: [{ name: "a" }] },
      expected: ALLOWED,
    },
    {
      name: "pod runAsUser=nil",
      spec: { securityContext: {}, containers: [{ name: "a" }] },
      expected: ALLOWED,
    },
    {
      name: "containers runAsUser=0",
      spec: {
        securityContext: { runAsUser: 1000 },
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "c", securityContext: { runAsUser: 0 } },
          { name: "d", securityContext: { runAsUser: 0 } },
          { name: "e", securityContext: { runAsUser: 1 } },
          { name: "f", securityContext: { runAsUser: 1 } },
        ],
      },
      expected: forbidden('containers "c", "d" must not set runAsUser=0'),
    },
    {
      name: "containers runAsUser=non-zero",
      spec: {
        containers: [
          { name: "c", securityContext: { runAsUser: 1 } },
          { name: "d", securityContext: { runAsUser: 2 } },
          { name: "e", securityContext: { runAsUser: 3 } },
          { name: "f", securityContext: { runAsUser: 4 } },
        ],
      },
      expected: ALLOWED,
    },
    { name: "host users false allowed", spec: { hostUsers: false }, expected: ALLOWED },
  ];
  for (const c of cases) {
    it(`v1.35: ${c.name}`, () => {
      expect(checkPod(35)(c.spec)).toStrictEqual(c.expected);
    });
  }

  it("v1.23 gives the same answers except that hostUsers: false is not exempt", () => {
    for (const c of cases) expect(checkPod(23)(c.spec)).toStrictEqual(c.expected);
    const root: PodSpec = {
      hostUsers: false,
      securityContext: { runAsUser: 0 },
      containers: [{ name: "a", securityContext: { runAsUser: 0 } }],
    };
    expect(checkPod(23)(root)).toStrictEqual(
      forbidden('pod and container "a" must not set runAsUser=0'),
    );
    expect(checkPod(35)(root)).toStrictEqual(ALLOWED);
    expect(checkPod(35)({ ...root, hostUsers: true })).toStrictEqual(
      forbidden('pod and container "a" must not set runAsUser=0'),
    );
  });

  it("lists init, then regular, then ephemeral containers", () => {
    expect(
      checkPod(35)({
        ephemeralContainers: [{ name: "e", securityContext: { runAsUser: 0 } }],
        containers: [{ name: "c", securityContext: { runAsUser: 0 } }],
        initContainers: [{ name: "i", securityContext: { runAsUser: 0 } }],
      }),
    ).toStrictEqual(forbidden('containers "i", "c", "e" must not set runAsUser=0'));
  });
});
