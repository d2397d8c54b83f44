import { describe, expect, it } from "vitest";
import type { PodSpec } from "../types";
import { LATEST, v1 } from "../types";
import { hostProbesAndHostLifecycle } from "./hostProbesAndHostLifecycle";
import {
  checkAt,
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

const REASON = "probe or lifecycle host";

const cases: { name: string; spec: PodSpec; detail?: string }[] = [
  {
    name: "valid pod with unset hosts",
    spec: {
      containers: [
        {
          name: "a",
          livenessProbe: { httpGet: {} },
          readinessProbe: { tcpSocket: {} },
          lifecycle: { postStart: { httpGet: {} } },
        },
      ],
    },
  },
  {
    name: "invalid pod with local host IP as probe host",
    spec: {
      containers: [
        {
          name: "a",
          livenessProbe: { httpGet: { host: "127.0.0.1" } },
          readinessProbe: { tcpSocket: { host: "::1" } },
          startupProbe: { httpGet: { host: "localhost" } },
        },
      ],
    },
    detail: `container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"`,
  },
  {
    name: "invalid httpget host in liveness probe",
    spec: { containers: [{ name: "a", livenessProbe: { httpGet: { host: "invalid.host" } } }] },
    detail: `container "a" uses probe or lifecycle host "invalid.host"`,
  },
  {
    name: "invalid tcpsocket host in readiness probe",
    spec: { containers: [{ name: "b", readinessProbe: { tcpSocket: { host: "invalid.host" } } }] },
    detail: `container "b" uses probe or lifecycle host "invalid.host"`,
  },
  {
    name: "invalid httpget host in startup probe",
    spec: { containers: [{ name: "c", startupProbe: { httpGet: { host: "invalid.host" } } }] },
    detail: `container "c" uses probe or lifecycle host "invalid.host"`,
  },
  {
    name: "invalid poststart tcpsocket host",
    spec: {
      containers: [
        { name: "d", lifecycle: { postStart: { tcpSocket: { host: "invalid.host" } } } },
      ],
    },
    detail: `container "d" uses probe or lifecycle host "invalid.host"`,
  },
  {
    name: "invalid prestop httpget host",
    spec: {
      containers: [
        { name: "e", lifecycle: { preStop: { httpGet: { host: "another.invalid.host" } } } },
      ],
    },
    detail: `container "e" uses probe or lifecycle host "another.invalid.host"`,
  },
  {
    name: "multiple containers with multiple invalid hosts",
    spec: {
      containers: [
        { name: "valid" },
        { name: "invalid1", livenessProbe: { httpGet: { host: "a.com" } } },
        {
          name: "invalid2",
          lifecycle: { preStop: { tcpSocket: { host: "b.com" } } },
          startupProbe: { httpGet: { host: "a.com" } },
        },
      ],
    },
    detail: `containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"`,
  },
  {
    name: "invalid ipv4 host in probe",
    spec: { containers: [{ name: "a", livenessProbe: { httpGet: { host: "8.8.8.8" } } }] },
    detail: `container "a" uses probe or lifecycle host "8.8.8.8"`,
  },
  {
    name: "invalid ipv6 host in probe",
    spec: {
      containers: [{ name: "a", livenessProbe: { tcpSocket: { host: "2001:4860:4860::8888" } } }],
    },
    detail: `container "a" uses probe or lifecycle host "2001:4860:4860::8888"`,
  },
  {
    name: "invalid host in initcontainer",
    spec: {
      initContainers: [{ name: "init", livenessProbe: { httpGet: { host: "invalid.init.host" } } }],
    },
    detail: `container "init" uses probe or lifecycle host "invalid.init.host"`,
  },
];

describe("hostProbesAndHostLifecycle", () => {
  it("is the baseline check hostProbesAndHostLifecycle, from v1.34", () => {
    expect(hostProbesAndHostLifecycle.id).toBe("hostProbesAndHostLifecycle");
    expect(hostProbesAndHostLifecycle.level).toBe("baseline");
    expect(declaredVersions(hostProbesAndHostLifecycle)).toEqual(["v1.34"]);
  });

  describe("v1.34", () => {
    const fn = versionFn(hostProbesAndHostLifecycle, 34);
    for (const tc of cases) {
      it(tc.name, () => {
        if (tc.detail === undefined) expectAllowed(run(fn, tc.spec));
        else expectForbidden(run(fn, tc.spec), REASON, tc.detail);
      });
    }

    it("lists containers as a set: sorted, each once, not in visit order", () => {
      expectForbidden(
        run(fn, {
          initContainers: [{ name: "z", startupProbe: { httpGet: { host: "h" } } }],
          containers: [
            {
              name: "m",
              livenessProbe: { httpGet: { host: "h" }, tcpSocket: { host: "t" } },
              lifecycle: { postStart: { httpGet: { host: "B" } } },
            },
          ],
          ephemeralContainers: [{ name: "a", readinessProbe: { tcpSocket: { host: "h" } } }],
        }),
        REASON,
        `containers "a", "m", "z" use probe or lifecycle hosts "B", "h", "t"`,
      );
    });
  });

  // The Go test evaluates a baseline policy at latest, v1.34 and v1.33 with this pod.
  it("applies from v1.34 and at latest; a v1.33 policy has no such check", () => {
    const spec: PodSpec = { containers: [{ startupProbe: { httpGet: { host: "localhost" } } }] };
    for (const version of [LATEST, v1(34)]) {
      const fn = checkAt(hostProbesAndHostLifecycle, version);
      expect(fn).toBeDefined();
      expectForbidden(
        run(fn!, spec),
        REASON,
        `container "" uses probe or lifecycle host "localhost"`,
      );
    }
    expect(checkAt(hostProbesAndHostLifecycle, v1(33))).toBeUndefined();
  });
});
