import "server-only";
import { BlockList, isIP } from "node:net";
import os from "node:os";
import { dashboardMode } from "@/lib/auth/mode";

/**
 * Where the TLS probe may connect. Anyone who may create a webhook configuration chooses the
 * URL the probe dials, so without limits the Health page is a port scanner from the dashboard's
 * network position. A restricted probe refuses every address the apiserver could not sensibly
 * call a webhook on, checked on the address it will connect to (a host name is resolved first,
 * and the probe then dials the address that was checked, so a name that resolves differently
 * the second time changes nothing):
 * - loopback: 127.0.0.0/8, ::1 (and `localhost`, which resolves to them);
 * - unspecified: 0.0.0.0/8, ::;
 * - link-local: 169.254.0.0/16 (cloud metadata services), fe80::/10;
 * - the dashboard's own addresses (every network interface of its host, so its own port too);
 * - any CIDR listed in PORTCULLIS_PROBE_DENY (comma separated), e.g. etcd's address;
 * and the same IPv4 addresses written as IPv6 (::ffff:127.0.0.1, ::127.0.0.1, 64:ff9b::7f00:1,
 * 2002:7f00:1::). Every refusal is said in the same words (PROBE_REFUSED).
 *
 * PORTCULLIS_PROBE_RESTRICT=1 turns the restriction on, =0 off; unset, it is on in shared mode
 * and off in local mode (a developer's own cluster, whose webhook backends often run on
 * 127.0.0.1). PORTCULLIS_PROBE_DENY applies in both modes.
 */
export const PROBE_REFUSED =
  "the dashboard does not probe this destination (loopback, link-local, unspecified, its own addresses, or PORTCULLIS_PROBE_DENY)";

/** What a probe that connected but got no TLS handshake says, however it failed. */
export const NO_HANDSHAKE = "the backend did not complete a TLS handshake";

export interface DestinationPolicy {
  restrict: boolean;
  /** Extra CIDRs refused whatever `restrict` says. */
  deny: readonly string[];
  /** The dashboard's own addresses. */
  own: readonly string[];
}

/** The policy from the environment the server runs with. */
export function destinationPolicyFromEnv(
  env: Record<string, string | undefined> = process.env,
): DestinationPolicy {
  const flag = env["PORTCULLIS_PROBE_RESTRICT"];
  const restrict =
    flag === "1" ? true : flag === "0" ? false : dashboardMode(env["PORTCULLIS_MODE"]) === "shared";
  const deny = (env["PORTCULLIS_PROBE_DENY"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const own = Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address.replace(/%.*$/, ""));
  return { restrict, deny, own };
}

/** An IPv6 address as eight 16-bit groups (undefined when it is not one). */
function groups6(address: string): number[] | undefined {
  let a = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(a) !== 6) return undefined;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, tail] = a.includes("::") ? a.split("::") : [a, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((x) => parseInt(x, 16));
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | undefined {
  const g = groups6(address);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, not :: or ::1), 64:ff9b::a.b.c.d (NAT64).
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!);
  if (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  return undefined;
}

function addCidr(list: BlockList, cidr: string): void {
  const [net, bits] = cidr.split("/");
  const family = isIP(net ?? "");
  if (!net || family === 0) return;
  const type = family === 6 ? "ipv6" : "ipv4";
  const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
  if (!Number.isInteger(prefix)) return;
  list.addSubnet(net, prefix, type);
}

/** Whether a restricted (or deny-listed) probe must not connect to `address` (an IP). */
export function refusedDestination(address: string, policy: DestinationPolicy): boolean {
  const list = new BlockList();
  if (policy.restrict) {
    for (const c of [
      "127.0.0.0/8",
      "0.0.0.0/8",
      "169.254.0.0/16",
      "::1/128",
      "::/128",
      "fe80::/10",
    ])
      addCidr(list, c);
    for (const a of policy.own) addCidr(list, a);
  }
  for (const c of policy.deny) addCidr(list, c);
  const a = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(a);
  if (family === 0) return true; // not an address at all: nothing to connect to
  if (family === 4) return list.check(a, "ipv4");
  const inner = embeddedIPv4(a);
  return list.check(a, "ipv6") || (inner !== undefined && list.check(inner, "ipv4"));
}
