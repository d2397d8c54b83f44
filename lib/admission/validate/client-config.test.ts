import { describe, expect, it } from "vitest";
import { validateClientConfig } from "./client-config";
import { errorBody } from "./field-error";
import { FieldPath } from "./field-path";
import type { JsonObject } from "./json";

const p = FieldPath.root("webhooks").at(0).child("clientConfig");
const run = (cc: JsonObject) =>
  validateClientConfig(cc, p).map((e) => `${e.field}: ${errorBody(e)}`);
const f = "; desired format: https://host[/path]";

describe("clientConfig", () => {
  const cases: [string, JsonObject, string[]][] = [
    [
      "validateWebhook: neither url nor service",
      {},
      ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"],
    ],
    [
      "validateWebhook: both url and service",
      { url: "https://x", service: { name: "s", namespace: "n" } },
      ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"],
    ],
    ["ValidateWebhookURL: https with path", { url: "https://x.example.com/a_b/C" }, []],
    [
      "ValidateWebhookURL: http scheme",
      { url: "http://x" },
      [
        `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${f}`,
      ],
    ],
    [
      "ValidateWebhookURL: no host",
      { url: "https://" },
      [`webhooks[0].clientConfig.url: Invalid value: "": host must be specified${f}`],
    ],
    [
      "ValidateWebhookURL: user info",
      { url: "https://u@x" },
      [
        'webhooks[0].clientConfig.url: Invalid value: "u": user information is not permitted in the URL',
      ],
    ],
    [
      "ValidateWebhookURL: fragment",
      { url: "https://x#f" },
      ['webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL'],
    ],
    [
      "ValidateWebhookURL: query",
      { url: "https://x?a=1" },
      [
        'webhooks[0].clientConfig.url: Invalid value: "a=1": query parameters are not permitted in the URL',
      ],
    ],
    [
      "ValidateWebhookURL: unparsable (url.Parse error)",
      { url: "https://[::1" },
      [
        `webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://[::1": missing ']' in host${f}`,
      ],
    ],
    [
      "ValidateWebhookURL: invalid escape",
      { url: "https://x/%zz" },
      [
        `webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://x/%zz": invalid URL escape "%zz"${f}`,
      ],
    ],
    [
      "ValidateWebhookService: ok with default port",
      { service: { name: "s", namespace: "n" } },
      [],
    ],
    [
      "ValidateWebhookService quirk: missing name is reported at service.namespace",
      { service: { namespace: "n" } },
      ["webhooks[0].clientConfig.service.namespace: Required value"],
    ],
    [
      "ValidateWebhookService quirk: missing namespace is reported at service.name",
      { service: { name: "s" } },
      ["webhooks[0].clientConfig.service.name: Required value"],
    ],
    [
      "ValidateWebhookService: port out of range",
      { service: { name: "s", namespace: "n", port: 0 } },
      [
        "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
      ],
    ],
    ["ValidateWebhookService: path '/'", { service: { name: "s", namespace: "n", path: "/" } }, []],
    [
      "ValidateWebhookService: path '//'",
      { service: { name: "s", namespace: "n", path: "//" } },
      ['webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty'],
    ],
    [
      // Go slices off the first byte even when it is not '/', so "a" also leaves an empty segment.
      "ValidateWebhookService: path without leading slash",
      { service: { name: "s", namespace: "n", path: "a" } },
      [
        "webhooks[0].clientConfig.service.path: Invalid value: \"a\": must start with a '/'",
        'webhooks[0].clientConfig.service.path: Invalid value: "a": segment[0] may not be empty',
      ],
    ],
    [
      "ValidateWebhookService: empty middle segment",
      { service: { name: "s", namespace: "n", path: "/a//b" } },
      [
        'webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty',
      ],
    ],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(run(input)).toEqual(want));

  it("ValidateWebhookService: path segments must be DNS subdomains (underscore rejected)", () => {
    const errs = run({ service: { name: "s", namespace: "n", path: "/validate_pods" } });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(
      /^webhooks\[0\]\.clientConfig\.service\.path: Invalid value: "\/validate_pods": segment\[0\]: a lowercase RFC 1123 subdomain/,
    );
  });
});
