import { describe, expect, it } from "vitest";
import type { Container } from "../types";
import { LATEST, v1 } from "../types";
import { seccompProfile_baseline } from "./seccompProfile_baseline";
import {
  checkAt,
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

describe("seccompProfile_baseline", () => {
  it("is the baseline check seccompProfile_baseline: annotations from v1.0, fields from v1.19", () => {
    expect(seccompProfile_baseline.id).toBe("seccompProfile_baseline");
    expect(seccompProfile_baseline.level).toBe("baseline");
    expect(declaredVersions(seccompProfile_baseline)).toEqual(["v1.0", "v1.19"]);
  });

  describe("v1.0", () => {
    const fn = versionFn(seccompProfile_baseline, 0);
    const abc: Container[] = [{ name: "a" }, { name: "b" }, { name: "c" }];

    it("pod seccomp invalid", () => {
      expectForbidden(
        run(fn, {}, { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } }),
        "seccompProfile",
        `forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"`,
      );
    });

    it("containers seccomp invalid", () => {
      expectForbidden(
        run(
          fn,
          { containers: abc },
          {
            annotations: {
              "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
              "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
            },
          },
        ),
        "seccompProfile",
        `forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown"`,
      );
    });

    it("pod and containers seccomp invalid", () => {
      expectForbidden(
        run(
          fn,
          { containers: abc },
          {
            annotations: {
              "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
              "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
              "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
            },
          },
        ),
        "seccompProfile",
        `forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined"`,
      );
    });

    it("reads only annotations of the pod's containers; an empty value is forbidden", () => {
      expectForbidden(
        run(
          fn,
          { containers: [{ name: "a" }] },
          {
            annotations: {
              "container.seccomp.security.alpha.kubernetes.io/a": "",
              "container.seccomp.security.alpha.kubernetes.io/z": "unconfined",
            },
          },
        ),
        "seccompProfile",
        `forbidden annotation container.seccomp.security.alpha.kubernetes.io/a=""`,
      );
    });

    it("quotes annotation values as Go's %q does (non-printable runes escaped)", () => {
      expectForbidden(
        run(fn, {}, { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "\u200bx\t" } }),
        "seccompProfile",
        `forbidden annotation seccomp.security.alpha.kubernetes.io/pod="\\u200bx\\t"`,
      );
    });

    it("allows runtime/default, docker/default, localhost/*, and ignores the fields", () => {
      expectAllowed(
        run(
          fn,
          {
            securityContext: { seccompProfile: { type: "Unconfined" } },
            containers: abc,
          },
          {
            annotations: {
              "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
              "container.seccomp.security.alpha.kubernetes.io/a": "docker/default",
              "container.seccomp.security.alpha.kubernetes.io/b": "localhost/x",
            },
          },
        ),
      );
    });
  });

  describe("v1.19", () => {
    const fn = versionFn(seccompProfile_baseline, 19);
    const mixed: Container[] = [
      { name: "a" },
      { name: "b", securityContext: {} },
      { name: "c", securityContext: { seccompProfile: { type: "Unconfined" } } },
      { name: "d", securityContext: { seccompProfile: { type: "Unconfined" } } },
      { name: "e", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
      { name: "f", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
    ];

    it("pod seccomp invalid", () => {
      expectForbidden(
        run(fn, {
          securityContext: { seccompProfile: { type: "Unconfined" } },
          containers: [{ name: "a" }],
        }),
        "seccompProfile",
        `pod must not set securityContext.seccompProfile.type to "Unconfined"`,
      );
    });

    it("containers seccomp invalid", () => {
      expectForbidden(
        run(fn, {
          securityContext: { seccompProfile: { type: "RuntimeDefault" } },
          containers: mixed,
        }),
        "seccompProfile",
        `containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"`,
      );
    });

    it("pod and containers seccomp invalid", () => {
      expectForbidden(
        run(fn, { securityContext: { seccompProfile: { type: "Unconfined" } }, containers: mixed }),
        "seccompProfile",
        `pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"`,
      );
    });

    it("an unset type is the empty type; values listed once, sorted", () => {
      expectForbidden(
        run(fn, {
          containers: [
            { name: "x", securityContext: { seccompProfile: { type: "Unconfined" } } },
            { name: "y", securityContext: { seccompProfile: {} } },
          ],
        }),
        "seccompProfile",
        `containers "x", "y" must not set securityContext.seccompProfile.type to "", "Unconfined"`,
      );
    });

    it("allows Localhost and RuntimeDefault, and ignores the annotations", () => {
      expectAllowed(
        run(
          fn,
          {
            securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "p" } },
            containers: [
              { name: "a", securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
            ],
          },
          { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } },
        ),
      );
    });
  });

  it("a policy version picks the rule in force at it", () => {
    const meta = { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } };
    expect(checkAt(seccompProfile_baseline, v1(18))!(meta, {}).allowed).toBe(false);
    expect(checkAt(seccompProfile_baseline, v1(19))!(meta, {}).allowed).toBe(true);
    expect(checkAt(seccompProfile_baseline, LATEST)!(meta, {}).allowed).toBe(true);
  });
});
