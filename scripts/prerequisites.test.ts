import { describe, expect, it } from "vitest";
import {
  LIBFAKETIME,
  missingPrerequisites,
  prerequisitesLine,
  soakRuns,
  type Probe,
} from "./prerequisites";

/** A machine with everything `npm test` needs, with `without` taken away. */
function fakeMachine(
  without: {
    node?: string;
    commands?: string[];
    files?: string[];
    env?: Record<string, string>;
  } = {},
): Probe {
  const commands = new Set(["go", "gcc", "openssl"]);
  for (const c of without.commands ?? []) commands.delete(c);
  const files = new Set([
    "/usr/bin/chromium",
    "/usr/lib/postgresql/15/bin/initdb",
    "/usr/include/stdio.h",
  ]);
  for (const f of without.files ?? []) files.delete(f);
  return {
    nodeVersion: without.node ?? "20.19.0",
    env: without.env ?? {},
    onPath: (c) => commands.has(c),
    exists: (f) => files.has(f),
    list: (dir) => (dir === "/usr/lib/postgresql" ? ["15"] : []),
  };
}

const line = (probe: Probe, browser = true) =>
  prerequisitesLine(missingPrerequisites(probe, { browser }));

describe("npm test's prerequisites", () => {
  it("says nothing on a machine that has them all", () => {
    expect(missingPrerequisites(fakeMachine(), { browser: true })).toEqual([]);
    expect(line(fakeMachine())).toBeNull();
  });

  it("names chromium and postgresql with the one apt-get line", () => {
    const probe = fakeMachine({
      files: ["/usr/bin/chromium", "/usr/lib/postgresql/15/bin/initdb"],
    });
    expect(line(probe)).toBe(
      "missing prerequisites: chromium, postgresql — install with: apt-get install -y chromium postgresql",
    );
  });

  // Each prerequisite alone: the line must name it (and apt must be told to install it when apt can).
  const single: [string, Parameters<typeof fakeMachine>[0], string, string | null][] = [
    ["an old Node.js", { node: "20.18.3" }, "Node.js ≥ 20.19 (this is 20.18.3)", null],
    ["Node.js 18", { node: "18.20.4" }, "Node.js ≥ 20.19 (this is 18.20.4)", null],
    ["Go", { commands: ["go"] }, "go", null],
    ["Chromium", { files: ["/usr/bin/chromium"] }, "chromium", "chromium"],
    [
      "Chromium where CHROMIUM_PATH points",
      { env: { CHROMIUM_PATH: "/opt/chromium/chrome" } },
      "chromium",
      "chromium",
    ],
    ["PostgreSQL", { files: ["/usr/lib/postgresql/15/bin/initdb"] }, "postgresql", "postgresql"],
    ["gcc", { commands: ["gcc"] }, "gcc", "gcc"],
    ["the C library headers", { files: ["/usr/include/stdio.h"] }, "libc6-dev", "libc6-dev"],
    ["openssl", { commands: ["openssl"] }, "openssl", "openssl"],
  ];
  it.each(single)("names %s when it is missing", (_what, without, name, apt) => {
    const text = line(fakeMachine(without));
    expect(text).not.toBeNull();
    expect(text).toContain(`missing prerequisites: ${name}`);
    if (apt) expect(text).toContain(`apt-get install -y ${apt}`);
    else expect(text).not.toContain("apt-get");
  });

  it("names everything missing at once, in one line", () => {
    const text = line(
      fakeMachine({
        node: "18.20.4",
        commands: ["go", "gcc", "openssl"],
        files: ["/usr/bin/chromium", "/usr/lib/postgresql/15/bin/initdb", "/usr/include/stdio.h"],
      }),
    );
    expect(text).toBe(
      "missing prerequisites: Node.js ≥ 20.19 (this is 18.20.4), go, chromium, postgresql, gcc, libc6-dev, openssl" +
        " — install with: apt-get install -y chromium postgresql gcc libc6-dev openssl" +
        "; Go ≥ 1.26 from its release archive on PATH (Debian's golang-go is older)" +
        "; Node.js ≥ 20.19 from its release archive on PATH",
    );
    expect(text).not.toContain("\n");
  });

  it("takes a newer Node.js, and any installed PostgreSQL version", () => {
    expect(line(fakeMachine({ node: "22.1.0" }))).toBeNull();
    const files = new Set([
      "/usr/bin/chromium",
      "/usr/include/stdio.h",
      "/usr/lib/postgresql/17/bin/initdb",
    ]);
    const pg17: Probe = {
      ...fakeMachine(),
      exists: (f) => files.has(f),
      list: (dir) => (dir === "/usr/lib/postgresql" ? ["17"] : []),
    };
    expect(line(pg17)).toBeNull();
    // A version directory without the server binaries (only the client package) is not enough.
    expect(
      line({ ...pg17, exists: (f) => f !== "/usr/lib/postgresql/17/bin/initdb" && files.has(f) }),
    ).toBe("missing prerequisites: postgresql — install with: apt-get install -y postgresql");
  });

  it("asks for libfaketime only when the run closes with the soak, when asked for", () => {
    const probe = fakeMachine();
    expect(missingPrerequisites(probe, { browser: true, soak: true })).toEqual([
      { name: "libfaketime", apt: "libfaketime" },
    ]);
    expect(missingPrerequisites(probe, { browser: true, soak: false })).toEqual([]);
    const withIt: Probe = { ...probe, exists: (f) => f === LIBFAKETIME || probe.exists(f) };
    expect(missingPrerequisites(withIt, { browser: true, soak: true })).toEqual([]);
    expect(soakRuns({ CI: "true" })).toBe(true);
    expect(soakRuns({})).toBe(true);
    expect(soakRuns({ PORTCULLIS_SOAK: "1" })).toBe(true);
    expect(soakRuns({ PORTCULLIS_SOAK: "0" })).toBe(false);
    expect(soakRuns({ CI: "true", PORTCULLIS_SOAK: "0" })).toBe(false);
  });

  it("leaves out what only the browser tests need for --only oracle", () => {
    const probe = fakeMachine({ files: ["/usr/bin/chromium"], commands: ["gcc"] });
    expect(line(probe, false)).toBeNull();
    expect(line(probe, true)).toContain("chromium, gcc");
  });
});
