import { describe, expect, it } from "vitest";
import { hostNamespaces } from "./hostNamespaces";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

describe("hostNamespaces", () => {
  it("is the baseline check hostNamespaces, from v1.0", () => {
    expect(hostNamespaces.id).toBe("hostNamespaces");
    expect(hostNamespaces.level).toBe("baseline");
    expect(declaredVersions(hostNamespaces)).toEqual(["v1.0"]);
  });

  const fn = versionFn(hostNamespaces, 0);

  it("multiple host namespaces", () => {
    expectForbidden(
      run(fn, { hostNetwork: true, hostIPC: true, hostPID: true }),
      "host namespaces",
      "hostNetwork=true, hostPID=true, hostIPC=true",
    );
  });

  it("one host namespace", () => {
    expectForbidden(run(fn, { hostIPC: true }), "host namespaces", "hostIPC=true");
  });

  it("allows unset and false", () => {
    expectAllowed(run(fn, {}));
    expectAllowed(run(fn, { hostNetwork: false, hostPID: false, hostIPC: false }));
  });
});
