import { describe, expect, it } from "vitest";
import { capabilities_baseline } from "./capabilities_baseline";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

const DEFAULT_SET = [
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
];

describe("capabilities_baseline", () => {
  it("is the baseline check capabilities_baseline, from v1.0", () => {
    expect(capabilities_baseline.id).toBe("capabilities_baseline");
    expect(capabilities_baseline.level).toBe("baseline");
    expect(declaredVersions(capabilities_baseline)).toEqual(["v1.0"]);
  });

  const fn = versionFn(capabilities_baseline, 0);

  it("multiple containers", () => {
    expectForbidden(
      run(fn, {
        containers: [
          { name: "a", securityContext: { capabilities: { add: ["FOO", "BAR"] } } },
          { name: "b", securityContext: { capabilities: { add: ["BAR", "BAZ"] } } },
        ],
      }),
      "non-default capabilities",
      `containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add`,
    );
  });

  it("allows exactly the default set, and drops", () => {
    expectAllowed(
      run(fn, {
        containers: [
          { name: "a", securityContext: { capabilities: { add: DEFAULT_SET, drop: ["ALL"] } } },
        ],
      }),
    );
    expectAllowed(run(fn, { containers: [{ name: "a", securityContext: {} }] }));
  });

  it("forbids NET_RAW, ALL and case variants of the default set", () => {
    expectForbidden(
      run(fn, {
        containers: [
          { name: "a", securityContext: { capabilities: { add: ["CHOWN", "NET_RAW"] } } },
          { name: "b", securityContext: { capabilities: { add: ["chown"] } } },
          { name: "c", securityContext: { capabilities: { add: ["ALL"] } } },
        ],
      }),
      "non-default capabilities",
      `containers "a", "b", "c" must not include "ALL", "NET_RAW", "chown" in securityContext.capabilities.add`,
    );
  });
});
