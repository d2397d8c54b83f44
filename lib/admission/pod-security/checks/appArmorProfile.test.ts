import { describe, expect, it } from "vitest";
import type { PodMeta, PodSpec } from "../types";
import { appArmorProfile } from "./appArmorProfile";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

const PREFIX = "container.apparmor.security.beta.kubernetes.io/";

describe("appArmorProfile", () => {
  it("is the baseline check appArmorProfile, from v1.0", () => {
    expect(appArmorProfile.id).toBe("appArmorProfile");
    expect(appArmorProfile.level).toBe("baseline");
    expect(declaredVersions(appArmorProfile)).toEqual(["v1.0"]);
  });

  const fn = versionFn(appArmorProfile, 0);

  describe("allowed", () => {
    const cases: { name: string; meta: PodMeta; spec: PodSpec }[] = [
      {
        name: "container with default AppArmor + extra annotations",
        meta: { annotations: { [PREFIX + "test"]: "runtime/default", env: "prod" } },
        spec: {},
      },
      {
        name: "container with local AppArmor + extra annotations",
        meta: { annotations: { [PREFIX + "test"]: "localhost/sec-profile01", env: "dev" } },
        spec: {},
      },
      {
        name: "container with no AppArmor annotations",
        meta: { annotations: { env: "dev" } },
        spec: {},
      },
      { name: "container with no annotations", meta: {}, spec: {} },
      {
        name: "pod with runtime default",
        meta: {},
        spec: { securityContext: { appArmorProfile: { type: "RuntimeDefault" } } },
      },
      {
        name: "container with localhost profile",
        meta: {},
        spec: {
          containers: [
            { name: "foo", securityContext: { appArmorProfile: { type: "RuntimeDefault" } } },
          ],
        },
      },
    ];
    for (const tc of cases) it(tc.name, () => expectAllowed(run(fn, tc.spec, tc.meta)));

    it("a Localhost profile type on pod and container", () => {
      expectAllowed(
        run(fn, {
          securityContext: { appArmorProfile: { type: "Localhost", localhostProfile: "p" } },
          containers: [{ name: "a", securityContext: { appArmorProfile: { type: "Localhost" } } }],
        }),
      );
    });
  });

  describe("forbidden", () => {
    it("unconfined pod", () => {
      expectForbidden(
        run(fn, { securityContext: { appArmorProfile: { type: "Unconfined" } } }),
        "forbidden AppArmor profile",
        `pod must not set AppArmor profile type to "Unconfined"`,
      );
    });

    it("unconfined container", () => {
      expectForbidden(
        run(fn, {
          securityContext: { appArmorProfile: { type: "RuntimeDefault" } },
          containers: [
            { name: "foo", securityContext: { appArmorProfile: { type: "Unconfined" } } },
          ],
        }),
        "forbidden AppArmor profile",
        `container "foo" must not set AppArmor profile type to "Unconfined"`,
      );
    });

    it("unconfined init container", () => {
      expectForbidden(
        run(fn, {
          securityContext: { appArmorProfile: { type: "RuntimeDefault" } },
          containers: [{ name: "foo" }],
          initContainers: [
            { name: "bar", securityContext: { appArmorProfile: { type: "Unconfined" } } },
          ],
        }),
        "forbidden AppArmor profile",
        `container "bar" must not set AppArmor profile type to "Unconfined"`,
      );
    });

    it("multiple containers", () => {
      expectForbidden(
        run(
          fn,
          {},
          {
            annotations: {
              [`${PREFIX}f`]: `unknown`,
              [`${PREFIX}`]: `bogus`,
              [`${PREFIX}a`]: ``,
              [`${PREFIX}b`]: `runtime/default`,
              [`${PREFIX}c`]: `localhost/`,
              [`${PREFIX}d`]: `localhost/foo`,
              [`${PREFIX}e`]: `unconfined`,
            },
          },
        ),
        "forbidden AppArmor profiles",
        "annotations must not set AppArmor profile type to " +
          [
            `"container.apparmor.security.beta.kubernetes.io/="bogus""`,
            `"container.apparmor.security.beta.kubernetes.io/e="unconfined""`,
            `"container.apparmor.security.beta.kubernetes.io/f="unknown""`,
          ].join(", "),
      );
    });

    it("quotes annotation values as Go's %q does (non-printable runes escaped)", () => {
      expectForbidden(
        run(fn, {}, { annotations: { [`${PREFIX}a`]: "\u2028\u00a0x" } }),
        "forbidden AppArmor profile",
        `annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a="\\u2028\\u00a0x""`,
      );
    });

    it("pod, containers and an annotation together; an unset type is the empty type", () => {
      expectForbidden(
        run(
          fn,
          {
            securityContext: { appArmorProfile: { type: "Unconfined" } },
            containers: [
              { name: "b", securityContext: { appArmorProfile: {} } },
              { name: "a", securityContext: { appArmorProfile: { type: "Unconfined" } } },
            ],
          },
          { annotations: { [`${PREFIX}a`]: `say "hi"\n` } },
        ),
        "forbidden AppArmor profiles",
        `pod and containers "b", "a" and annotation must not set AppArmor profile type to "", "Unconfined", "container.apparmor.security.beta.kubernetes.io/a="say \\"hi\\"\\n""`,
      );
    });
  });
});
