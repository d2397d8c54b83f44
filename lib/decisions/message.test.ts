import { describe, expect, it } from "vitest";
import { messageGist } from "./message";

describe("messageGist", () => {
  it("starts a failed webhook call at its reason", () => {
    expect(
      messageGist(
        'failed to call webhook: Post "https://tenant-guard.guard-system.svc:443/validate?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority',
      ),
    ).toBe("tls: failed to verify certificate: x509: certificate signed by unknown authority");
    expect(
      messageGist(
        'failed to call webhook: Post "https://127.0.0.1:8443/slow?timeout=1s": context deadline exceeded',
      ),
    ).toBe("context deadline exceeded");
  });
  it("keeps a call failure without a request in it after the common prefix", () => {
    expect(
      messageGist("failed to call webhook: the server is currently unable to handle the request"),
    ).toBe("the server is currently unable to handle the request");
  });
  it("shows every other message as it is", () => {
    for (const m of [
      "policy require-limits: CPU and memory resource limits are required",
      "Deployment web needs a team label",
      "",
      "failed to call webhook: ",
      'failed to call webhook: Post "https://x/": ',
    ])
      expect(messageGist(m)).toBe(m);
  });
});

describe("messageGist and bidirectional controls", () => {
  it("writes out a webhook message's controls, so its words never run backwards", () => {
    expect(messageGist("request \u202edeillaf\u202c by policy")).toBe(
      "request \\u202edeillaf\\u202c by policy",
    );
    expect(messageGist('failed to call webhook: Post "https://x/": \u2067x')).toBe("\\u2067x");
    expect(messageGist("مرحبا <b>")).toBe("مرحبا <b>");
  });
});
