/**
 * The TLS probe's destinations: a restricted probe (shared mode's default) refuses loopback,
 * unspecified, link-local and the dashboard's own addresses in every spelling, in the same words,
 * without connecting; and a probe that does connect says the same thing whether the port is
 * closed, silent or not TLS.
 */
import net from "node:net";
import os from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  destinationPolicyFromEnv,
  embeddedIPv4,
  NO_HANDSHAKE,
  PROBE_REFUSED,
  refusedDestination,
} from "./destinations";
import { probeTls } from "./probe";

const restricted = { restrict: true, deny: [], own: ["10.1.2.3", "fd00::7"] };

const FORBIDDEN = [
  "127.0.0.1",
  "127.42.0.9",
  "0.0.0.0",
  "0.1.2.3",
  "169.254.169.254",
  "::1",
  "[::1]",
  "::",
  "fe80::1",
  "febf::1",
  "::ffff:127.0.0.1",
  "[::ffff:127.0.0.1]",
  "::ffff:7f00:1",
  "0:0:0:0:0:ffff:7f00:0001",
  "::127.0.0.1",
  "64:ff9b::7f00:1",
  "2002:7f00:1::",
  "::ffff:169.254.169.254",
  "::ffff:0.0.0.0",
  "10.1.2.3",
  "::ffff:10.1.2.3",
  "fd00::7",
];

describe("refusedDestination", () => {
  it.each(FORBIDDEN)("refuses %s when restricted", (a) => {
    expect(refusedDestination(a, restricted)).toBe(true);
  });

  it.each(["10.96.0.10", "192.168.1.20", "8.8.8.8", "2001:db8::1", "::ffff:10.96.0.10", "fd00::8"])(
    "lets %s through",
    (a) => {
      expect(refusedDestination(a, restricted)).toBe(false);
    },
  );

  it("local mode's default lets loopback through; the deny list applies anyway", () => {
    const open = { restrict: false, deny: [], own: ["10.1.2.3"] };
    expect(refusedDestination("127.0.0.1", open)).toBe(false);
    expect(refusedDestination("10.1.2.3", open)).toBe(false);
    const deny = { restrict: false, deny: ["10.0.0.0/24", "2001:db8::/32"], own: [] };
    expect(refusedDestination("10.0.0.7", deny)).toBe(true);
    expect(refusedDestination("::ffff:10.0.0.7", deny)).toBe(true);
    expect(refusedDestination("2001:db8::1", deny)).toBe(true);
    expect(refusedDestination("10.0.1.7", deny)).toBe(false);
  });

  it("reads the IPv4 address inside IPv6 forms", () => {
    expect(embeddedIPv4("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(embeddedIPv4("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(embeddedIPv4("64:ff9b::a9fe:a9fe")).toBe("169.254.169.254");
    expect(embeddedIPv4("::1")).toBeUndefined();
    expect(embeddedIPv4("2001:db8::1")).toBeUndefined();
  });

  it("restriction: on in shared mode, off in local mode, either way by PORTCULLIS_PROBE_RESTRICT", () => {
    expect(destinationPolicyFromEnv({ PORTCULLIS_MODE: "shared" }).restrict).toBe(true);
    expect(destinationPolicyFromEnv({ PORTCULLIS_PROBE_RESTRICT: "1" }).restrict).toBe(true);
    expect(
      destinationPolicyFromEnv({ PORTCULLIS_MODE: "shared", PORTCULLIS_PROBE_RESTRICT: "0" })
        .restrict,
    ).toBe(false);
    expect(destinationPolicyFromEnv({ PORTCULLIS_PROBE_DENY: " 10.0.0.0/8 ,, ::1" }).deny).toEqual([
      "10.0.0.0/8",
      "::1",
    ]);
  });
});

describe("probeTls", () => {
  let connections = 0;
  let server: net.Server;
  let port = 0;
  beforeAll(async () => {
    // Plain TCP that says something that is not TLS: a probe reaching it would count here.
    server = net.createServer((s) => {
      connections++;
      s.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => {
    server.close();
  });
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  const own = Object.values(os.networkInterfaces())
    .flatMap((l) => l ?? [])
    .map((i) => i.address.replace(/%.*$/, ""));

  it.each([
    "127.0.0.1",
    "localhost",
    "0.0.0.0",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "169.254.169.254",
    "[fe80::1]",
    ...own.slice(0, 3),
  ])("restricted, refuses %s in the same words without connecting", async (host) => {
    process.env["PORTCULLIS_PROBE_RESTRICT"] = "1";
    const before = connections;
    const r = await probeTls({ host, port, serverName: "x", timeoutMs: 2000 });
    expect(r).toEqual({ status: "not-probed", reason: PROBE_REFUSED });
    expect(connections).toBe(before);
  });

  it("shared mode restricts by default", async () => {
    process.env["PORTCULLIS_MODE"] = "shared";
    delete process.env["PORTCULLIS_PROBE_RESTRICT"];
    const r = await probeTls({ host: "127.0.0.2", port, serverName: "y", timeoutMs: 2000 });
    expect(r).toEqual({ status: "not-probed", reason: PROBE_REFUSED });
  });

  it("local mode probes loopback, and a closed port and a non-TLS server read alike", async () => {
    delete process.env["PORTCULLIS_MODE"];
    delete process.env["PORTCULLIS_PROBE_RESTRICT"];
    // A port that was just free: nothing listens on it.
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const notTls = await probeTls({ host: "127.0.0.1", port, serverName: "a", timeoutMs: 5000 });
    const refused = await probeTls({
      host: "127.0.0.1",
      port: closedPort,
      serverName: "b",
      timeoutMs: 5000,
    });
    expect(notTls).toEqual({ status: "down", error: NO_HANDSHAKE });
    expect(refused).toEqual({ status: "down", error: NO_HANDSHAKE });
  });
});
