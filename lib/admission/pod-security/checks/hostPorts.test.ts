import { describe, expect, it } from "vitest";
import { hostPorts } from "./hostPorts";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

describe("hostPorts", () => {
  it("is the baseline check hostPorts, from v1.0", () => {
    expect(hostPorts.id).toBe("hostPorts");
    expect(hostPorts.level).toBe("baseline");
    expect(declaredVersions(hostPorts)).toEqual(["v1.0"]);
  });

  const fn = versionFn(hostPorts, 0);

  it("one container, one host port", () => {
    expectForbidden(
      run(fn, {
        containers: [
          { name: "a", ports: [{ hostPort: 0 }] },
          { name: "b", ports: [{ hostPort: 0 }, { hostPort: 20 }] },
        ],
      }),
      "hostPort",
      `container "b" uses hostPort 20`,
    );
  });

  it("multiple containers, multiple host port", () => {
    expectForbidden(
      run(fn, {
        containers: [
          { name: "a", ports: [{ hostPort: 0 }] },
          { name: "b", ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 20 }] },
          { name: "c", ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 30 }] },
        ],
      }),
      "hostPort",
      `containers "b", "c" use hostPorts 10, 20, 30`,
    );
  });

  it("lists ports as Go sorts their strings (9000 after 10000), containers in visit order", () => {
    expectForbidden(
      run(fn, {
        containers: [{ name: "z", ports: [{ hostPort: 9000 }] }],
        initContainers: [{ name: "a", ports: [{ hostPort: 10000 }, { containerPort: 80 }] }],
      }),
      "hostPort",
      `containers "a", "z" use hostPorts 10000, 9000`,
    );
  });

  it("allows unset and zero host ports", () => {
    expectAllowed(run(fn, {}));
    expectAllowed(
      run(fn, { containers: [{ name: "a", ports: [{ containerPort: 80 }, { hostPort: 0 }] }] }),
    );
  });
});
