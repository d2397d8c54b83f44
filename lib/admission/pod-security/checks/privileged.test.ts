import { describe, expect, it } from "vitest";
import { privileged } from "./privileged";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

describe("privileged", () => {
  it("is the baseline check privileged, from v1.0", () => {
    expect(privileged.id).toBe("privileged");
    expect(privileged.level).toBe("baseline");
    expect(declaredVersions(privileged)).toEqual(["v1.0"]);
  });

  const fn = versionFn(privileged, 0);

  it("privileged", () => {
    expectForbidden(
      run(fn, {
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "c", securityContext: { privileged: false } },
          { name: "d", securityContext: { privileged: true } },
          { name: "e", securityContext: { privileged: true } },
        ],
      }),
      "privileged",
      `containers "d", "e" must not set securityContext.privileged=true`,
    );
  });

  it("one container, in init, regular, ephemeral order", () => {
    expectForbidden(
      run(fn, { containers: [{ name: "c", securityContext: { privileged: true } }] }),
      "privileged",
      `container "c" must not set securityContext.privileged=true`,
    );
    expectForbidden(
      run(fn, {
        ephemeralContainers: [{ name: "e", securityContext: { privileged: true } }],
        containers: [{ name: "c", securityContext: { privileged: true } }],
        initContainers: [{ name: "i", securityContext: { privileged: true } }],
      }),
      "privileged",
      `containers "i", "c", "e" must not set securityContext.privileged=true`,
    );
  });

  it("allows unset and false", () => {
    expectAllowed(run(fn, {}));
    expectAllowed(run(fn, { containers: [{ name: "a", securityContext: { privileged: false } }] }));
  });
});
