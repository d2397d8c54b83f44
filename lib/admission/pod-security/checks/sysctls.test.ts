import { describe, expect, it } from "vitest";
import type { PodSpec, Sysctl } from "../types";
import { LATEST, v1 } from "../types";
import { sysctls } from "./sysctls";
import {
  checkAt,
  declaredVersions,
  expectAllowed,
  expectForbidden,
  run,
  versionFn,
} from "./baseline-test-support";

const withSysctls = (...list: Sysctl[]): PodSpec => ({
  securityContext: { sysctls: list },
});

interface Case {
  name: string;
  spec: PodSpec;
  allowed: boolean;
  detail?: string;
}

const forbiddenAB: Case = {
  name: "forbidden sysctls",
  spec: withSysctls({ name: "a" }, { name: "b" }),
  allowed: false,
  detail: "a, b",
};

const notYet = (name: string, value: string): Case => ({
  name: `new supported sysctls not supported: ${name}`,
  spec: withSysctls({ name, value }),
  allowed: false,
  detail: name,
});
const supported = (name: string, value: string): Case => ({
  name: `new supported sysctls: ${name}`,
  spec: withSysctls({ name, value }),
  allowed: true,
});

const table: Record<number, Case[]> = {
  0: [
    forbiddenAB,
    notYet("net.ipv4.ip_local_reserved_ports", "1024-4999"),
    notYet("net.ipv4.tcp_keepalive_time", "7200"),
    notYet("net.ipv4.tcp_fin_timeout", "60"),
    notYet("net.ipv4.tcp_keepalive_intvl", "75"),
    notYet("net.ipv4.tcp_keepalive_probes", "9"),
    notYet("net.ipv4.tcp_rmem", "4096 87380 16777216"),
    notYet("net.ipv4.tcp_wmem", "4096 87380 16777216"),
  ],
  27: [
    forbiddenAB,
    {
      ...supported("net.ipv4.ip_local_reserved_ports", "1024-4999"),
      name: "new supported sysctls",
    },
  ],
  29: [
    forbiddenAB,
    supported("net.ipv4.tcp_keepalive_time", "7200"),
    supported("net.ipv4.tcp_fin_timeout", "60"),
    supported("net.ipv4.tcp_keepalive_intvl", "75"),
    supported("net.ipv4.tcp_keepalive_probes", "9"),
  ],
  32: [
    forbiddenAB,
    supported("net.ipv4.tcp_rmem", "4096 87380 16777216"),
    supported("net.ipv4.tcp_wmem", "4096 65536 16777216"),
  ],
  37: [
    forbiddenAB,
    supported("net.ipv4.tcp_slow_start_after_idle", "0"),
    supported("net.ipv4.tcp_notsent_lowat", "16384"),
  ],
};

/** Each version's allowed set, as listed in the PodSecurity plugin. */
const allowedAt: [number, string[]][] = [
  [
    0,
    [
      "kernel.shm_rmid_forced",
      "net.ipv4.ip_local_port_range",
      "net.ipv4.tcp_syncookies",
      "net.ipv4.ping_group_range",
      "net.ipv4.ip_unprivileged_port_start",
    ],
  ],
  [27, ["net.ipv4.ip_local_reserved_ports"]],
  [
    29,
    [
      "net.ipv4.tcp_keepalive_time",
      "net.ipv4.tcp_fin_timeout",
      "net.ipv4.tcp_keepalive_intvl",
      "net.ipv4.tcp_keepalive_probes",
    ],
  ],
  [32, ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]],
  [37, ["net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"]],
];

describe("sysctls", () => {
  it("is the baseline check sysctls, with versions v1.0, v1.27, v1.29, v1.32, v1.37", () => {
    expect(sysctls.id).toBe("sysctls");
    expect(sysctls.level).toBe("baseline");
    expect(declaredVersions(sysctls)).toEqual(["v1.0", "v1.27", "v1.29", "v1.32", "v1.37"]);
  });

  for (const [minor, cases] of Object.entries(table)) {
    describe(`v1.${minor}`, () => {
      const fn = versionFn(sysctls, Number(minor));
      for (const tc of cases) {
        it(tc.name, () => {
          if (tc.allowed) expectAllowed(run(fn, tc.spec));
          else expectForbidden(run(fn, tc.spec), "forbidden sysctls", tc.detail!);
        });
      }
    });
  }

  it("allows each version's set exactly, and nothing added later", () => {
    const all = allowedAt.flatMap(([, names]) => names);
    for (const [minor] of allowedAt) {
      const fn = versionFn(sysctls, minor);
      const mine = allowedAt.filter(([m]) => m <= minor).flatMap(([, names]) => names);
      expectAllowed(run(fn, withSysctls(...mine.map((name) => ({ name })))));
      const later = all.filter((n) => !mine.includes(n));
      if (later.length > 0)
        expectForbidden(
          run(fn, withSysctls(...later.map((name) => ({ name })))),
          "forbidden sysctls",
          later.join(", "),
        );
    }
  });

  it("lists forbidden names in spec order, repeated and empty names included", () => {
    expectForbidden(
      run(
        versionFn(sysctls, 37),
        withSysctls(
          { name: "z" },
          { name: "kernel.shm_rmid_forced" },
          { name: "a" },
          { name: "z" },
          {},
        ),
      ),
      "forbidden sysctls",
      "z, a, z, ",
    );
  });

  it("a policy version picks the set in force at it", () => {
    const spec = withSysctls({ name: "net.ipv4.tcp_rmem" });
    expect(checkAt(sysctls, v1(31))!({}, spec).allowed).toBe(false);
    expect(checkAt(sysctls, v1(32))!({}, spec).allowed).toBe(true);
    expect(checkAt(sysctls, LATEST)!({}, spec).allowed).toBe(true);
  });
});
