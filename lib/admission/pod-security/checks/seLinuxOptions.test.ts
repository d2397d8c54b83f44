import { describe, expect, it } from "vitest";
import type { Container, PodSpec } from "../types";
import { seLinuxOptions } from "./seLinuxOptions";
import {
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

const allowedContainers: Container[] = [
  { name: "a", securityContext: { seLinuxOptions: { type: "container_t" } } },
  { name: "b", securityContext: { seLinuxOptions: { type: "container_init_t" } } },
  { name: "c", securityContext: { seLinuxOptions: { type: "container_kvm_t" } } },
  { name: "d", securityContext: { seLinuxOptions: { type: "container_engine_t" } } },
];
const badContainers: Container[] = [
  { name: "e", securityContext: { seLinuxOptions: { type: "bar" } } },
  { name: "f", securityContext: { seLinuxOptions: { user: "bar" } } },
  { name: "g", securityContext: { seLinuxOptions: { role: "baz" } } },
];

const cases: { name: string; spec: PodSpec; detail: string }[] = [
  {
    name: "invalid pod and containers",
    spec: {
      securityContext: { seLinuxOptions: { type: "foo", user: "bar", role: "baz" } },
      containers: [...allowedContainers, ...badContainers],
    },
    detail: `pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set`,
  },
  {
    name: "invalid pod",
    spec: {
      securityContext: { seLinuxOptions: { type: "foo", user: "bar", role: "baz" } },
      containers: allowedContainers,
    },
    detail: `pod set forbidden securityContext.seLinuxOptions: type "foo"; user may not be set; role may not be set`,
  },
  {
    name: "invalid containers",
    spec: {
      securityContext: { seLinuxOptions: {} },
      containers: [...allowedContainers, ...badContainers],
    },
    detail: `containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: type "bar"; user may not be set; role may not be set`,
  },
  {
    name: "bad type",
    spec: { securityContext: { seLinuxOptions: { type: "bad" } } },
    detail: `pod set forbidden securityContext.seLinuxOptions: type "bad"`,
  },
  {
    name: "bad user",
    spec: { securityContext: { seLinuxOptions: { user: "bad" } } },
    detail: `pod set forbidden securityContext.seLinuxOptions: user may not be set`,
  },
  {
    name: "bad role",
    spec: { securityContext: { seLinuxOptions: { role: "bad" } } },
    detail: `pod set forbidden securityContext.seLinuxOptions: role may not be set`,
  },
];

describe("seLinuxOptions", () => {
  it("is the baseline check seLinuxOptions, from v1.0, container_engine_t allowed from v1.31", () => {
    expect(seLinuxOptions.id).toBe("seLinuxOptions");
    expect(seLinuxOptions.level).toBe("baseline");
    expect(declaredVersions(seLinuxOptions)).toEqual(["v1.0", "v1.31"]);
  });

  describe("v1.31", () => {
    const fn = versionFn(seLinuxOptions, 31);
    for (const tc of cases)
      it(tc.name, () => expectForbidden(run(fn, tc.spec), "seLinuxOptions", tc.detail));

    it("allows the allowed types, empty options and no options", () => {
      expectAllowed(
        run(fn, { securityContext: { seLinuxOptions: {} }, containers: allowedContainers }),
      );
      expectAllowed(
        run(fn, {
          containers: [{ name: "x", securityContext: { seLinuxOptions: { level: "s0:c1" } } }],
        }),
      );
      expectAllowed(run(fn, {}));
    });
  });

  describe("v1.0", () => {
    const fn = versionFn(seLinuxOptions, 0);

    it("forbids container_engine_t", () => {
      expectForbidden(
        run(fn, { securityContext: { seLinuxOptions: {} }, containers: allowedContainers }),
        "seLinuxOptions",
        `container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"`,
      );
    });

    it("allows the other types", () => {
      expectAllowed(run(fn, { containers: allowedContainers.slice(0, 3) }));
    });

    it("lists a type set by several containers once", () => {
      expectForbidden(
        run(fn, {
          initContainers: [
            { name: "i", securityContext: { seLinuxOptions: { type: "x", user: "u" } } },
          ],
          containers: [{ name: "c", securityContext: { seLinuxOptions: { type: "x" } } }],
        }),
        "seLinuxOptions",
        `containers "i", "c" set forbidden securityContext.seLinuxOptions: type "x"; user may not be set`,
      );
    });
  });
});
