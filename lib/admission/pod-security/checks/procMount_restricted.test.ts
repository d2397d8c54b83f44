import { describe, expect, it } from "vitest";
import { ALLOWED, v1, type PodSpec } from "../types";
import { procMount_restricted } from "./procMount_restricted";

const check = (spec: PodSpec) => procMount_restricted.versions[0]!.checkPod({}, spec);
const forbidden = (detail: string) => ({
  allowed: false,
  forbiddenReason: "procMount",
  forbiddenDetail: detail,
});

describe("procMount_restricted", () => {
  it("is the restricted check of v1.35, replacing procMount", () => {
    expect(procMount_restricted.id).toBe("procMount_restricted");
    expect(procMount_restricted.level).toBe("restricted");
    expect(procMount_restricted.versions.map((v) => v.minimumVersion)).toStrictEqual([v1(35)]);
    expect(procMount_restricted.versions.map((v) => v.overrideCheckIDs)).toStrictEqual([
      ["procMount"],
    ]);
  });

  // The apiserver's table, run with hostUsers true and false.
  for (const hostUsers of [true, false]) {
    it(`procMount (hostUsers: ${hostUsers})`, () => {
      expect(
        check({
          hostUsers,
          containers: [
            { name: "a" },
            { name: "b", securityContext: {} },
            { name: "c", securityContext: { procMount: "Default" } },
            { name: "d", securityContext: { procMount: "Unmasked" } },
            { name: "e", securityContext: { procMount: "other" } },
          ],
        }),
      ).toStrictEqual(
        forbidden(
          'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"',
        ),
      );
    });
  }

  it("lists init, then regular, then ephemeral containers, and each type once", () => {
    expect(
      check({
        ephemeralContainers: [{ name: "e", securityContext: { procMount: "Unmasked" } }],
        containers: [{ name: "c", securityContext: { procMount: "" } }],
        initContainers: [{ name: "i", securityContext: { procMount: "Unmasked" } }],
      }),
    ).toStrictEqual(
      forbidden(
        'containers "i", "c", "e" must not set securityContext.procMount to "", "Unmasked"',
      ),
    );
    expect(
      check({ containers: [{ name: "d", securityContext: { procMount: "Unmasked" } }] }),
    ).toStrictEqual(
      forbidden('container "d" must not set securityContext.procMount to "Unmasked"'),
    );
  });

  it("admits Default and unset procMount", () => {
    expect(
      check({
        hostUsers: false,
        containers: [{ name: "a" }, { name: "c", securityContext: { procMount: "Default" } }],
      }),
    ).toStrictEqual(ALLOWED);
  });
});
