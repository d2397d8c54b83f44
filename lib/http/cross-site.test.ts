import { describe, expect, it } from "vitest";
import { isCrossSiteWrite, type RequestFacts } from "./cross-site";

const base: RequestFacts = {
  method: "POST",
  url: "http://127.0.0.1:3000/api/contexts",
  origin: null,
  secFetchSite: null,
  host: "127.0.0.1:3000",
};

describe("isCrossSiteWrite", () => {
  it.each([
    ["a GET from anywhere", { method: "GET", secFetchSite: "cross-site" }, false],
    [
      "a same-origin write",
      { secFetchSite: "same-origin", origin: "http://127.0.0.1:3000" },
      false,
    ],
    ["a typed-in navigation", { secFetchSite: "none" }, false],
    ["a cross-site write", { secFetchSite: "cross-site", origin: "https://evil.example" }, true],
    ["a same-site but other-origin write", { secFetchSite: "same-site" }, true],
    ["an old browser: other Origin, no Sec-Fetch-Site", { origin: "https://evil.example" }, true],
    ["an old browser: own Origin", { origin: "http://127.0.0.1:3000" }, false],
    ["a garbage Origin", { origin: "not a url" }, true],
    ["a non-browser client (no Origin, no Sec-Fetch-Site)", {}, false],
  ] as const)("%s", (_name, facts, expected) => {
    expect(isCrossSiteWrite({ ...base, ...facts })).toBe(expected);
  });
});
