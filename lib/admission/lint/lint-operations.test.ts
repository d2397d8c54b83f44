import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import { hook } from "@/lib/admission/model/test-helpers";

const mcfg = (name: string, ...webhooks: ReturnType<typeof hook>[]) => ({
  metadata: { name },
  webhooks,
});
const only = (id: string, f: ReturnType<typeof lint>) => f.filter((x) => x.id === id);

describe("L9 (§3.7 timeouts add up serially)", () => {
  it("flags a timeout above 10s with a patch", () => {
    const f = only(
      "L9",
      lint({
        snapshot: { mutatingWebhookConfigurations: [mcfg("a", hook("h", { timeoutSeconds: 20 }))] },
      }),
    );
    expect(f[0]?.fix?.jsonPatch).toEqual([
      { op: "add", path: "/webhooks/0/timeoutSeconds", value: 5 },
    ]);
  });
  it("flags serial budgets near --request-timeout", () => {
    const hooks = Array.from({ length: 3 }, (_, i) =>
      hook(`h${i}`, { timeoutSeconds: 10, reinvocationPolicy: "IfNeeded" }),
    );
    expect(
      only("L9", lint({ snapshot: { mutatingWebhookConfigurations: [mcfg("a", ...hooks)] } })).map(
        (f) => f.title,
      ),
    ).toContain("Admission timeouts can exceed the request timeout");
  });
  it("flags p99 close to the timeout (metrics)", () => {
    expect(
      only(
        "L9",
        lint({
          snapshot: {
            mutatingWebhookConfigurations: [mcfg("a", hook("h", { timeoutSeconds: 2 }))],
          },
          metrics: { p99LatencySeconds: { h: 1.9 } },
        }),
      ),
    ).toHaveLength(1);
  });
});

describe("L10 (§3.6 dry run with Unknown/Some)", () => {
  it("flags grandfathered sideEffects", () => {
    expect(
      only(
        "L10",
        lint({
          snapshot: {
            mutatingWebhookConfigurations: [mcfg("a", hook("h", { sideEffects: "Unknown" }))],
          },
        }),
      ),
    ).toHaveLength(1);
  });
});

describe("L13 (§3.4 reinvocation)", () => {
  it("reminds IfNeeded hooks to be idempotent", () => {
    expect(
      only(
        "L13",
        lint({
          snapshot: {
            mutatingWebhookConfigurations: [
              mcfg("a", hook("h", { reinvocationPolicy: "IfNeeded" })),
            ],
          },
        }),
      ),
    ).toHaveLength(1);
  });
});

describe("L14 (webhook_fail_open_count)", () => {
  it("needs metrics and an Ignore hook failing open", () => {
    const snapshot = {
      mutatingWebhookConfigurations: [mcfg("a", hook("h", { failurePolicy: "Ignore" }))],
    };
    expect(only("L14", lint({ snapshot }))).toHaveLength(0);
    expect(
      only("L14", lint({ snapshot, metrics: { failOpenPerSecond: { h: 0.5 } } })),
    ).toHaveLength(1);
  });
});

describe("L15 (§3.2 byte-wise name order)", () => {
  it("flags 10- before 9-", () => {
    const f = only(
      "L15",
      lint({
        snapshot: {
          mutatingWebhookConfigurations: [mcfg("9-a", hook("x")), mcfg("10-b", hook("y"))],
        },
      }),
    );
    expect(f[0]?.explanation).toContain("10-b → 9-a");
  });
  it("is silent for zero-padded names", () => {
    expect(
      only(
        "L15",
        lint({
          snapshot: {
            mutatingWebhookConfigurations: [mcfg("09-a", hook("x")), mcfg("10-b", hook("y"))],
          },
        }),
      ),
    ).toHaveLength(0);
  });
});

describe("L19 (a name the apiserver files its own audit records under)", () => {
  const vcfg = (name: string, ...webhooks: ReturnType<typeof hook>[]) => ({
    metadata: { name },
    webhooks,
  });
  const policy = (
    name: string,
    auditAnnotations?: Array<{ key: string; valueExpression: string }>,
  ) => ({
    metadata: { name },
    spec: {
      validations: [{ expression: "true" }],
      ...(auditAnnotations ? { auditAnnotations } : {}),
    },
  });
  it("flags a mutating and a validating webhook named like the apiserver's prefixes", () => {
    const f = only(
      "L19",
      lint({
        snapshot: {
          mutatingWebhookConfigurations: [
            mcfg("m", hook("mutation.webhook.admission.k8s.io"), hook("gate.example.com")),
          ],
          validatingWebhookConfigurations: [
            vcfg("v", hook("failed-open.validating.webhook.admission.k8s.io")),
          ],
        },
      }),
    );
    expect(f.map((x) => [x.severity, x.objects[0]?.kind, x.objects[0]?.hook])).toEqual([
      ["high", "MutatingWebhookConfiguration", "mutation.webhook.admission.k8s.io"],
      ["high", "ValidatingWebhookConfiguration", "failed-open.validating.webhook.admission.k8s.io"],
    ]);
    expect(f[0]?.explanation).toContain("whether it mutated");
    expect(f[1]?.explanation).toContain("failed open");
  });
  it("flags every prefix the feed reads, and only exact names", () => {
    const names = [
      "mutation.webhook.admission.k8s.io",
      "patch.webhook.admission.k8s.io",
      "failed-open.mutation.webhook.admission.k8s.io",
      "failed-open.validating.webhook.admission.k8s.io",
      "validation.policy.admission.k8s.io",
      "apiserver.latency.k8s.io",
    ];
    const near = [
      "x.mutation.webhook.admission.k8s.io",
      "webhook.admission.k8s.io",
      "latency.k8s.io",
    ];
    const f = only(
      "L19",
      lint({
        snapshot: {
          validatingWebhookConfigurations: [vcfg("v", ...[...names, ...near].map((n) => hook(n)))],
        },
      }),
    );
    expect(f.map((x) => x.objects[0]?.hook)).toEqual(names);
  });
  it("flags a policy only when it writes audit annotations", () => {
    const f = only(
      "L19",
      lint({
        snapshot: {
          validatingAdmissionPolicies: [
            policy("validation.policy.admission.k8s.io", [
              { key: "validation_failure", valueExpression: "'[]'" },
            ]),
            policy("apiserver.latency.k8s.io"),
            policy("mine.example.com", [{ key: "k", valueExpression: "'v'" }]),
          ],
        },
      }),
    );
    expect(f.map((x) => [x.objects[0]?.kind, x.objects[0]?.name])).toEqual([
      ["ValidatingAdmissionPolicy", "validation.policy.admission.k8s.io"],
    ]);
    expect(f[0]?.explanation).toContain("validation failures");
  });
});
