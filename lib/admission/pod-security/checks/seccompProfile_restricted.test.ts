import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { seccompProfile_restricted } from "./seccompProfile_restricted";

const checkPod = (minor: number) => {
  const v = seccompProfile_restricted.versions.find((x) => x.minimumVersion.minor === minor);
  if (v === undefined) throw new Error(`no version 1.${minor}`);
  return (spec: PodSpec) => v.checkPod({}, spec);
};
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "seccompProfile",
  forbiddenDetail: detail,
});

describe("seccompProfile_restricted", () => {
  it("is the restricted check of v1.19 and v1.25, replacing seccompProfile_baseline", () => {
    expect(seccompProfile_restricted.id).toBe("seccompProfile_restricted");
    expect(seccompProfile_restricted.level).toBe("restricted");
    expect(seccompProfile_restricted.versions.map((v) => v.minimumVersion)).toStrictEqual([
      v1(19),
      v1(25),
    ]);
    expect(seccompProfile_restricted.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([
      ["seccompProfile_baseline"],
      ["seccompProfile_baseline"],
    ]);
  });

  const noExplicit = {
    name: "no explicit seccomp",
    spec: { containers: [{ name: "a" }] },
    expected: forbidden(
      'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    ),
  };
  const common: { name: string; spec: PodSpec; expected: object }[] = [
    {
      name: "pod seccomp invalid",
      spec: {
        securityContext: { seccompProfile: { type: "Unconfined" } },
        containers: [{ name: "a" }],
      },
      expected: forbidden('pod must not set securityContext.seccompProfile.type to "Unconfined"'),
    },
    {
      name: "containers seccomp invalid",
      spec: {
        securityContext: { seccompProfile: { type: "RuntimeDefault" } },
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "c", securityContext: { seccompProfile: { type: "Unconfined" } } },
          { name: "d", securityContext: { seccompProfile: { type: "Unconfined" } } },
          { name: "e", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
          { name: "f", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
        ],
      },
      expected: forbidden(
        'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
      ),
    },
    {
      name: "pod nil, container fallthrough",
      spec: {
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "d", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
          { name: "e", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
        ],
      },
      expected: forbidden(
        'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
      ),
    },
  ];

  describe("v1.25", () => {
    const v125: { name: string; spec: PodSpec; expected: object }[] = [
      noExplicit,
      {
        name: "no explicit seccomp, windows Pod",
        spec: { os: { name: "windows" }, containers: [{ name: "a" }] },
        expected: ALLOWED,
      },
      {
        name: "no explicit seccomp, linux pod",
        spec: { os: { name: "linux" }, containers: [{ name: "a" }] },
        expected: forbidden(
          'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        ),
      },
      ...common,
    ];
    for (const c of v125) {
      it(c.name, () => {
        expect(checkPod(25)(c.spec)).toStrictEqual(c.expected);
      });
    }
  });

  describe("v1.19", () => {
    for (const c of [noExplicit, ...common]) {
      it(c.name, () => {
        expect(checkPod(19)(c.spec)).toStrictEqual(c.expected);
      });
    }
    it("does not exempt windows pods", () => {
      expect(checkPod(19)({ os: { name: "windows" }, containers: [{ name: "a" }] })).toStrictEqual(
        noExplicit.expected,
      );
    });
  });

  it("names the pod and the containers together, with their types once, byte-wise sorted", () => {
    expect(
      checkPod(25)({
        securityContext: { seccompProfile: { type: "Unconfined" } },
        initContainers: [{ name: "i", securityContext: { seccompProfile: {} } }],
        containers: [
          { name: "c", securityContext: { seccompProfile: { type: "Unconfined" } } },
          { name: "ok", securityContext: { seccompProfile: { type: "Localhost" } } },
          { name: "n" },
        ],
        ephemeralContainers: [
          { name: "e", securityContext: { seccompProfile: { type: "runtimedefault" } } },
        ],
      }),
    ).toStrictEqual(
      forbidden(
        'pod and containers "i", "c", "e" must not set securityContext.seccompProfile.type to "", "Unconfined", "runtimedefault"',
      ),
    );
  });

  it("admits a valid pod-level profile, or valid profiles on every container", () => {
    expect(
      checkPod(25)({
        securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "p" } },
        containers: [{ name: "a" }],
      }),
    ).toStrictEqual(ALLOWED);
    expect(
      checkPod(19)({
        initContainers: [{ name: "i", securityContext: { seccompProfile: { type: "Localhost" } } }],
        containers: [
          { name: "a", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
        ],
      }),
    ).toStrictEqual(ALLOWED);
  });
});
