import { describe, expect, it } from "vitest";
import type { Container } from "../types";
import { LATEST, v1 } from "../types";
import { procMount } from "./procMount";
import {
  checkAt,
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

const containers: Container[] = [
  { name: "a" },
  { name: "b", securityContext: {} },
  { name: "c", securityContext: { procMount: "Default" } },
  { name: "d", securityContext: { procMount: "Unmasked" } },
  { name: "e", securityContext: { procMount: "other" } },
];

describe("procMount (baseline)", () => {
  it("is the baseline check procMount, from v1.0, relaxed for user namespaces from v1.35", () => {
    expect(procMount.id).toBe("procMount");
    expect(procMount.level).toBe("baseline");
    expect(declaredVersions(procMount)).toEqual(["v1.0", "v1.35"]);
  });

  describe("v1.35", () => {
    const fn = versionFn(procMount, 35);

    it("procMount", () => {
      expectForbidden(
        run(fn, { containers, hostUsers: true }),
        "procMount",
        `containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"`,
      );
    });

    it("procMount with userns", () => {
      expectAllowed(run(fn, { containers, hostUsers: false }));
    });

    it("hostUsers unset is not a user namespace", () => {
      expectForbidden(
        run(fn, { containers }),
        "procMount",
        `containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"`,
      );
    });
  });

  describe("v1.0", () => {
    const fn = versionFn(procMount, 0);

    it("forbids a non-default procMount even in a user namespace", () => {
      expectForbidden(
        run(fn, { containers, hostUsers: false }),
        "procMount",
        `containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"`,
      );
    });

    it("lists each type once, sorted, containers in visit order", () => {
      expectForbidden(
        run(fn, {
          containers: [{ name: "x", securityContext: { procMount: "Unmasked" } }],
          initContainers: [{ name: "i", securityContext: { procMount: "Unmasked" } }],
        }),
        "procMount",
        `containers "i", "x" must not set securityContext.procMount to "Unmasked"`,
      );
      expectForbidden(
        run(fn, { containers: [{ name: "x", securityContext: { procMount: "" } }] }),
        "procMount",
        `container "x" must not set securityContext.procMount to ""`,
      );
    });
  });

  it("a policy version picks the rule in force at it", () => {
    const spec = { containers, hostUsers: false };
    expect(checkAt(procMount, v1(34))!({}, spec).allowed).toBe(false);
    expect(checkAt(procMount, v1(35))!({}, spec).allowed).toBe(true);
    expect(checkAt(procMount, LATEST)!({}, spec).allowed).toBe(true);
  });
});
