import { describe, expect, it } from "vitest";
import { hostPathVolumes } from "./hostPathVolumes";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

describe("hostPathVolumes", () => {
  it("is the baseline check hostPathVolumes, from v1.0", () => {
    expect(hostPathVolumes.id).toBe("hostPathVolumes");
    expect(hostPathVolumes.level).toBe("baseline");
    expect(declaredVersions(hostPathVolumes)).toEqual(["v1.0"]);
  });

  const fn = versionFn(hostPathVolumes, 0);

  it("host path volumes", () => {
    expectForbidden(
      run(fn, {
        volumes: [
          { name: "a", hostPath: {} },
          { name: "b", hostPath: {} },
          { name: "c", emptyDir: {} },
        ],
      }),
      "hostPath volumes",
      `volumes "a", "b"`,
    );
  });

  it("one host path volume", () => {
    expectForbidden(
      run(fn, { volumes: [{ name: "h", hostPath: { path: "/var" } }] }),
      "hostPath volumes",
      `volume "h"`,
    );
  });

  it("allows other volumes and a null hostPath (nil in Go)", () => {
    expectAllowed(run(fn, {}));
    expectAllowed(
      run(fn, {
        volumes: [
          { name: "c", emptyDir: {} },
          { name: "n", hostPath: null },
        ],
      }),
    );
  });
});
