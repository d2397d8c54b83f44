import { describe, expect, it } from "vitest";
import { windowsHostProcess } from "./windowsHostProcess";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

describe("windowsHostProcess", () => {
  it("is the baseline check windowsHostProcess, from v1.0", () => {
    expect(windowsHostProcess.id).toBe("windowsHostProcess");
    expect(windowsHostProcess.level).toBe("baseline");
    expect(declaredVersions(windowsHostProcess)).toEqual(["v1.0"]);
  });

  const fn = versionFn(windowsHostProcess, 0);

  it("host process", () => {
    expectForbidden(
      run(fn, {
        securityContext: { windowsOptions: { hostProcess: true } },
        containers: [
          { name: "a" },
          { name: "b", securityContext: {} },
          { name: "c", securityContext: { windowsOptions: {} } },
          { name: "d", securityContext: { windowsOptions: { hostProcess: false } } },
          { name: "e", securityContext: { windowsOptions: { hostProcess: true } } },
          { name: "f", securityContext: { windowsOptions: { hostProcess: true } } },
        ],
      }),
      "hostProcess",
      `pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true`,
    );
  });

  it("pod only, and one container only", () => {
    expectForbidden(
      run(fn, { securityContext: { windowsOptions: { hostProcess: true } } }),
      "hostProcess",
      `pod must not set securityContext.windowsOptions.hostProcess=true`,
    );
    expectForbidden(
      run(fn, {
        securityContext: { windowsOptions: { hostProcess: false } },
        ephemeralContainers: [
          { name: "dbg", securityContext: { windowsOptions: { hostProcess: true } } },
        ],
      }),
      "hostProcess",
      `container "dbg" must not set securityContext.windowsOptions.hostProcess=true`,
    );
  });

  it("allows unset and false", () => {
    expectAllowed(run(fn, {}));
    expectAllowed(
      run(fn, {
        securityContext: { windowsOptions: { hostProcess: false } },
        containers: [{ name: "a", securityContext: { windowsOptions: { hostProcess: false } } }],
      }),
    );
  });
});
