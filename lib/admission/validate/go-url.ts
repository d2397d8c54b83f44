import { goQuote } from "./go-format";

/**
 * The parts of Go's net/url.Parse that decide whether ValidateWebhookURL accepts a URL, with Go's
 * error strings (Go 1.2x). Only what the webhook URL check reads is kept: scheme, user info, host,
 * raw query and fragment.
 */
interface GoUrl {
  scheme: string;
  user: string | undefined;
  host: string;
  rawQuery: string;
  fragment: string;
}

export type GoUrlResult = { ok: true; url: GoUrl } | { ok: false; error: string };

function isHex(c: string): boolean {
  return /^[0-9A-Fa-f]$/.test(c);
}

// shouldEscape(c, encodeHost) for ASCII: these are the characters a host may contain unescaped.
function hostCharAllowed(c: string): boolean {
  return /[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/.test(c);
}

type Mode = "host" | "path" | "fragment" | "user";

function unescape(
  s: string,
  mode: Mode,
): { ok: true; value: string } | { ok: false; error: string } {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%") {
      const a = s[i + 1];
      const b = s[i + 2];
      if (a === undefined || b === undefined || !isHex(a) || !isHex(b)) {
        const bad = s.slice(i, i + 3);
        return { ok: false, error: `invalid URL escape ${goQuote(bad)}` };
      }
      if (mode === "host" && !(a === "2" && b === "5") && parseInt(a + b, 16) < 0x80) {
        const ch = String.fromCharCode(parseInt(a + b, 16));
        if (!hostCharAllowed(ch))
          return { ok: false, error: `invalid URL escape ${goQuote(s.slice(i, i + 3))}` };
      }
      i += 2;
    } else if (mode === "host" && c.charCodeAt(0) < 0x80 && !hostCharAllowed(c)) {
      return { ok: false, error: `invalid character ${goQuote(c)} in host name` };
    }
  }
  try {
    return { ok: true, value: decodeURIComponent(s.replace(/%(?![0-9A-Fa-f]{2})/g, "%25")) };
  } catch {
    return { ok: true, value: s };
  }
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function parseHost(host: string): { ok: true; value: string } | { ok: false; error: string } {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) return { ok: false, error: "missing ']' in host" };
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort))
      return { ok: false, error: `invalid port ${goQuote(colonPort)} after host` };
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort))
        return { ok: false, error: `invalid port ${goQuote(colonPort)} after host` };
    }
  }
  return unescape(host, "host");
}

function getScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") {
      if (i === 0) return { error: "missing protocol scheme" };
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

/** net/url.Parse. Errors read `parse "<url>": <reason>` like Go's *url.Error. */
export function goParseUrl(rawURL: string): GoUrlResult {
  const hashAt = rawURL.indexOf("#");
  const u = hashAt < 0 ? rawURL : rawURL.slice(0, hashAt);
  const frag = hashAt < 0 ? "" : rawURL.slice(hashAt + 1);
  const fail = (what: string, reason: string): GoUrlResult => ({
    ok: false,
    error: `parse ${goQuote(what)}: ${reason}`,
  });
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(u)) return fail(u, "net/url: invalid control character in URL");
  const url: GoUrl = { scheme: "", user: undefined, host: "", rawQuery: "", fragment: "" };
  if (u !== "*") {
    const sch = getScheme(u);
    if ("error" in sch) return fail(u, sch.error);
    url.scheme = sch.scheme.toLowerCase();
    let rest = sch.rest;
    if (rest.endsWith("?") && rest.split("?").length === 2) {
      rest = rest.slice(0, -1);
    } else {
      const q = rest.indexOf("?");
      if (q >= 0) {
        url.rawQuery = rest.slice(q + 1);
        rest = rest.slice(0, q);
      }
    }
    let opaque = false;
    if (!rest.startsWith("/")) {
      if (url.scheme !== "") opaque = true;
      else {
        const seg = rest.split("/")[0] ?? "";
        if (seg.includes(":")) return fail(u, "first path segment in URL cannot contain colon");
      }
    }
    if (!opaque) {
      if ((url.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
        let authority = rest.slice(2);
        rest = "";
        const slash = authority.indexOf("/");
        if (slash >= 0) {
          rest = authority.slice(slash);
          authority = authority.slice(0, slash);
        }
        const at = authority.lastIndexOf("@");
        const h = parseHost(at < 0 ? authority : authority.slice(at + 1));
        if (!h.ok) return fail(u, h.error);
        url.host = h.value;
        if (at >= 0) {
          const userinfo = authority.slice(0, at);
          if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo))
            return fail(u, "net/url: invalid userinfo");
          const un = unescape(userinfo, "user");
          if (!un.ok) return fail(u, un.error);
          url.user = userinfo;
        }
      }
      const pth = unescape(rest, "path");
      if (!pth.ok) return fail(u, pth.error);
    }
  }
  if (frag !== "") {
    const f = unescape(frag, "fragment");
    if (!f.ok) return fail(rawURL, f.error);
    url.fragment = f.value;
  }
  return { ok: true, url };
}
