import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { runAsNonRoot } from "./runAsNonRoot";

const checkPod = (minor: number) => {
  const v = runAsNonRoot.versions.find((x) => x.minimumVersion.minor === minor);
  if (v === undefined) throw new Error(`no version 1.${minor}`);
  return (spec: PodSpec) => v.checkPod({}, spec);
};
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "runAsNonRoot != true",
  forbiddenDetail: detail,
});

describe("runAsNonRoot", () => {
  it("is the restricted check of v1.0 and v1.35, overriding nothing", () => {
    expect(runAsNonRoot.id).toBe("runAsNonRoot");
    expect(runAsNonRoot.level).toBe("restricted");
    expect(runAsNonRoot.versions.map((v) => v.minimumVersion)).toStrictEqual([v1(0), v1(35)]);
    expect(runAsNonRoot.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([
      undefined,
      undefined,
    ]);
  });

  // The apiserver's table, run against v1.35.
  const cases: { name: string; spec: PodSpec; expected: object }[] = [
    {
      name: "no explicit runAsNonRoot",
      spec: { containers: [{ name: "a" }] },
      expected: forbidden('pod or container "a" must set securityContext.runAsNonRoot=true'),
    },
    {
      name: "pod runAsNonRoot=false",
      spec: { securityContext: { runAsNonRoot: false }, containers: [{ name: "a" }] },
      expected: forbidden("pod must not set securityContext.runAsNonRoot=false"),
    },
    {
      name: "containers runAsNonRoot=false",
      spec: {
        securityContext: { runAsNonRoot: true },
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "c", securityContext: { runAsNonRoot: false } },
          { name: "d", securityContext: { runAsNonRoot: false } },
          { name: "e", securityContext: { runAsNonRoot: true } },
          { name: "f", securityContext: { runAsNonRoot: true } },
        ],
      },
      expected: forbidden('containers "c", "d" must not set securityContext.runAsNonRoot=false'),
    },
    {
      name: "pod nil, container fallthrough",
      spec: {
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "d", securityContext: { runAsNonRoot: true } },
          { name: "e", securityContext: { runAsNonRoot: true } },
        ],
      },
      expected: forbidden('pod or containers "a", "b" must set securityContext.runAsNonRoot=true'),
    },
    { name: "host users false allowed", spec: { hostUsers: false }, expected: ALLOWED },
  ];
  for (const c of cases) {
    it(`v1.35: ${c.name}`, () => {
      expect(checkPod(35)(c.spec)).toStrictEqual(c.expected);
    });
  }

  it("v1.0 gives the same answers except that hostUsers: false is not exempt", () => {
    for (const c of cases.slice(0, 4)) expect(checkPod(0)(c.spec)).toStrictEqual(c.expected);
    expect(checkPod(0)({ hostUsers: false })).toStrictEqual(ALLOWED);
    expect(checkPod(0)({ hostUsers: false, containers: [{ name: "a" }] })).toStrictEqual(
      forbidden('pod or container "a" must set securityContext.runAsNonRoot=true'),
    );
    expect(checkPod(35)({ hostUsers: false, containers: [{ name: "a" }] })).toStrictEqual(ALLOWED);
    expect(checkPod(35)({ hostUsers: true, containers: [{ name: "a" }] })).toStrictEqual(
      forbidden('pod or container "a" must set securityContext.runAsNonRoot=true'),
    );
  });

  it("names the pod and the containers that set false together, then nothing implicit", () => {
    expect(
      checkPod(35)({
        securityContext: { runAsNonRoot: false },
        initContainers: [{ name: "i", securityContext: { runAsNonRoot: false } }],
        containers: [{ name: "c" }],
        ephemeralContainers: [{ name: "e", securityContext: { runAsNonRoot: false } }],
      }),
    ).toStrictEqual(
      forbidden('pod and containers "i", "e" must not set securityContext.runAsNonRoot=false'),
    );
    expect(
      checkPod(35)({
        containers: [{ name: "c", securityContext: { runAsNonRoot: false } }],
      }),
    ).toStrictEqual(forbidden('container "c" must not set securityContext.runAsNonRoot=false'));
  });

  it("admits a pod that sets true, and containers that all set true", () => {
    expect(
      checkPod(35)({ securityContext: { runAsNonRoot: true }, containers: [{ name: "a" }] }),
    ).toStrictEqual(ALLOWED);
    expect(
      checkPod(0)({
        initContainers: [{ name: "i", securityContext: { runAsNonRoot: true } }],
        containers: [{ name: "a", securityContext: { runAsNonRoot: true } }],
      }),
    ).toStrictEqual(ALLOWED);
  });
});
