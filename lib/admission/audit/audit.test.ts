import { describe, expect, it } from "vitest";
import {
  MAX_RAW_EVENT_CHARS,
  parseAuditEvent,
  parseEventList,
  parseTime,
  requestFactsOfRaw,
} from "./audit";
import { readStatusMessage } from "./status-message";

/** An event shaped like kube-apiserver 1.37's audit webhook output (Metadata level). */
function event(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: "7e0cbcc6-8f1b-4b8f-a7b4-2f1f8a1d9f00",
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces/team-a/configmaps?fieldManager=kubectl-create",
    verb: "create",
    user: { username: "editor", uid: "editor-uid", groups: ["portcullis:editors"] },
    sourceIPs: ["127.0.0.1"],
    userAgent: "kubectl/v1.37.2",
    objectRef: { resource: "configmaps", namespace: "team-a", name: "cm1", apiVersion: "v1" },
    responseStatus: { metadata: {}, code: 201 },
    requestReceivedTimestamp: "2026-11-23T11:00:00.000000Z",
    stageTimestamp: "2026-11-23T11:00:00.012345Z",
    annotations: {
      "authorization.k8s.io/decision": "allow",
      "authorization.k8s.io/reason": 'RBAC: allowed by ClusterRoleBinding "x"',
    },
    ...over,
  };
}

describe("parseAuditEvent: webhooks", () => {
  it("reads request facts: user, groups, operation, resource, namespace, name, dry run", () => {
    const p = parseAuditEvent(
      event({
        requestURI: "/api/v1/namespaces/team-a/configmaps?dryRun=All&fieldManager=x",
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"cfg","webhook":"allow.example.com","mutated":false}',
        },
      }),
    );
    expect(p?.time).toBe(Date.parse("2026-11-23T11:00:00.012Z"));
    expect(p?.request).toMatchObject({
      user: "editor",
      groups: ["portcullis:editors"],
      verb: "create",
      operation: "CREATE",
      resource: "configmaps",
      namespace: "team-a",
      name: "cm1",
      dryRun: true,
      code: 201,
    });
    expect(p?.decisions).toEqual([
      {
        kind: "mutating-webhook",
        hook: "allow.example.com",
        configuration: "cfg",
        round: 0,
        index: 0,
        outcome: "admitted",
        message: "",
      },
    ]);
  });

  // endpoints/filters/impersonation: admission sees the impersonated user; the event's user is
  // the one who authenticated.
  // endpoints/handlers/delete.go: a delete with a body reads its DeleteOptions there, not from
  // the query; kubectl delete --dry-run=server and client-go send them in the body.
  it("reads a delete's dry run from its DeleteOptions, which the apiserver reads before the query", () => {
    const refused = {
      verb: "delete",
      requestURI: "/api/v1/namespaces/team-a/configmaps/cm1",
      level: "Request",
      responseStatus: {
        code: 500,
        message:
          'Internal error occurred: failed calling webhook "d.example.com": failed to call webhook: refused',
      },
    };
    const options = (dryRun?: string[]) => ({
      kind: "DeleteOptions",
      apiVersion: "meta.k8s.io/__internal",
      propagationPolicy: "Background",
      ...(dryRun ? { dryRun } : {}),
    });
    const dry = parseAuditEvent(event({ ...refused, requestObject: options(["All"]) }));
    expect(dry?.request).toMatchObject({ operation: "DELETE", dryRun: true });
    expect(requestFactsOfRaw(dry?.raw ?? "")?.dryRun).toBe(true);
    // A body without dryRun: the query's dryRun=All was ignored, the object deleted.
    const real = parseAuditEvent(
      event({
        ...refused,
        requestURI: `${refused.requestURI}?dryRun=All`,
        requestObject: options(),
      }),
    );
    expect(real?.request.dryRun).toBe(false);
    // No body: the query's options apply.
    const query = parseAuditEvent(
      event({ ...refused, requestURI: `${refused.requestURI}?dryRun=All` }),
    );
    expect(query?.request.dryRun).toBe(true);
    // Kept through what a stored event drops: a Secret's request object, a too-large event.
    const secret = parseAuditEvent(
      event({
        ...refused,
        objectRef: { resource: "secrets", namespace: "a", name: "s", apiVersion: "v1" },
        requestObject: options(["All"]),
      }),
    );
    expect(secret?.request.dryRun).toBe(true);
    expect(requestFactsOfRaw(secret?.raw ?? "")?.dryRun).toBe(true);
    for (const over of [
      { annotations: { "x.example.com/big": "b".repeat(MAX_RAW_EVENT_CHARS) } },
      { auditID: "i".repeat(1_000_000) },
    ]) {
      const big = parseAuditEvent(event({ ...refused, requestObject: options(["All"]), ...over }));
      expect(big?.raw.length).toBeLessThanOrEqual(MAX_RAW_EVENT_CHARS);
      expect(requestFactsOfRaw(big?.raw ?? "")).toEqual(big?.request);
      expect(big?.request.dryRun).toBe(true);
    }
  });

  it("reads an impersonated request as its impersonated user, keeping who impersonated", () => {
    const p = parseAuditEvent(
      event({
        user: { username: "admin", groups: ["system:masters", "system:authenticated"] },
        impersonatedUser: { username: "jane", groups: ["devs", "system:authenticated"] },
        responseStatus: {
          code: 400,
          message: 'admission webhook "deny.example.com" denied the request: nope',
        },
      }),
    );
    expect(p?.request).toMatchObject({
      user: "jane",
      groups: ["devs", "system:authenticated"],
      impersonatedBy: "admin",
    });
    const own = parseAuditEvent(event());
    expect(own?.request.user).toBe("editor");
    expect(own?.request).not.toHaveProperty("impersonatedBy");
  });

  // endpoints/handlers/patch.go, update.go: an apply or update that creates runs admission as
  // CREATE and answers 201.
  it("reads an apply or update that created its object as a CREATE", () => {
    const op = (verb: string, code: number) =>
      parseAuditEvent(
        event({
          verb,
          requestURI: "/api/v1/namespaces/team-a/configmaps/cm1?fieldManager=kubectl",
          responseStatus: { metadata: {}, code },
        }),
      )?.request.operation;
    expect(op("patch", 201)).toBe("CREATE");
    expect(op("update", 201)).toBe("CREATE");
    expect(op("patch", 200)).toBe("UPDATE");
    expect(op("update", 200)).toBe("UPDATE");
    // A refused apply of a new object: the code is the refusal's, so it reads as an update.
    expect(op("patch", 403)).toBe("UPDATE");
    expect(op("create", 201)).toBe("CREATE");
  });

  // mutating/dispatcher.go: the mutation annotation for every call, the patch one (Request level) when applied.
  it("gives one decision per mutating call, mutated with its patch, in round/index order", () => {
    const p = parseAuditEvent(
      event({
        level: "Request",
        verb: "patch",
        requestURI: "/api/v1/namespaces/team-a/configmaps/cm1",
        responseStatus: { metadata: {}, code: 200 },
        annotations: {
          "mutation.webhook.admission.k8s.io/round_1_index_0":
            '{"configuration":"cfg","webhook":"patch.example.com","mutated":false}',
          "mutation.webhook.admission.k8s.io/round_0_index_1":
            '{"configuration":"cfg","webhook":"allow.example.com","mutated":false}',
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"cfg","webhook":"patch.example.com","mutated":true}',
          "patch.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"cfg","webhook":"patch.example.com","patch":[{"op":"add","path":"/metadata/labels/x","value":"y"}],"patchType":"JSONPatch"}',
        },
      }),
    );
    expect(p?.request.operation).toBe("UPDATE");
    expect(p?.decisions.map((d) => [d.hook, d.round, d.index, d.outcome, d.patch])).toEqual([
      [
        "patch.example.com",
        0,
        0,
        "mutated",
        '[{"op":"add","path":"/metadata/labels/x","value":"y"}]',
      ],
      ["allow.example.com", 0, 1, "admitted", undefined],
      ["patch.example.com", 1, 0, "admitted", undefined],
    ]);
  });

  it("keeps a patch that changed nothing as admitted: the mutation annotation decides", () => {
    // mutating/dispatcher.go logs every applied patch; `mutated` says whether the object changed
    // (a reinvoked hook adding again what it added in round 0 does not).
    const patch = '[{"op":"add","path":"/metadata/labels/x","value":"y"}]';
    for (const order of ["patch first", "mutation first"]) {
      const annotations: Record<string, string> = {
        "patch.webhook.admission.k8s.io/round_1_index_0": `{"configuration":"cfg","webhook":"patch.example.com","patch":${patch},"patchType":"JSONPatch"}`,
        "mutation.webhook.admission.k8s.io/round_1_index_0":
          '{"configuration":"cfg","webhook":"patch.example.com","mutated":false}',
      };
      const ordered =
        order === "patch first"
          ? annotations
          : Object.fromEntries(Object.entries(annotations).reverse());
      const p = parseAuditEvent(event({ level: "Request", annotations: ordered }));
      expect(
        p?.decisions.map((d) => [d.round, d.outcome, d.patch]),
        order,
      ).toEqual([[1, "admitted", patch]]);
    }
  });

  it("marks fail-open calls of both phases; the mutating one also has its mutation annotation", () => {
    const p = parseAuditEvent(
      event({
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"slow","webhook":"sleep-ignore.example.com","mutated":false}',
          "failed-open.mutation.webhook.admission.k8s.io/round_0_index_0":
            "sleep-ignore.example.com",
          "failed-open.validating.webhook.admission.k8s.io/round_0_index_2": "v-ignore.example.com",
        },
      }),
    );
    expect(p?.decisions).toEqual([
      expect.objectContaining({
        kind: "mutating-webhook",
        hook: "sleep-ignore.example.com",
        configuration: "slow",
        outcome: "failed-open",
      }),
      expect.objectContaining({
        kind: "validating-webhook",
        hook: "v-ignore.example.com",
        configuration: "",
        index: 2,
        outcome: "failed-open",
      }),
    ]);
  });

  // webhook/errors/statuserror.go: "admission webhook %q denied the request: <message>", code clamped to ≥ 400.
  it("reads a validating webhook's denial from responseStatus", () => {
    const p = parseAuditEvent(
      event({
        responseStatus: {
          metadata: {},
          status: "Failure",
          message: 'admission webhook "deny.example.com" denied the request: no configmaps here',
          reason: "Forbidden",
          code: 403,
        },
      }),
    );
    expect(p?.decisions).toEqual([
      {
        kind: "webhook",
        hook: "deny.example.com",
        configuration: "",
        outcome: "denied",
        code: 403,
        message: "no configmaps here",
      },
    ]);
  });

  it("attributes a mutating webhook's denial to its own call, not to an extra row", () => {
    const p = parseAuditEvent(
      event({
        responseStatus: {
          code: 400,
          message: 'admission webhook "m.example.com" denied the request without explanation',
        },
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"first.example.com","mutated":false}',
          "mutation.webhook.admission.k8s.io/round_0_index_1":
            '{"configuration":"c","webhook":"m.example.com","mutated":false}',
        },
      }),
    );
    expect(p?.decisions.map((d) => [d.hook, d.outcome, d.code, d.message])).toEqual([
      ["first.example.com", "admitted", undefined, ""],
      ["m.example.com", "denied", 400, "without explanation"],
    ]);
  });

  // mutating/dispatcher.go: every call is annotated (deferred, the refusing one with mutated
  // false and no patch) and the phase stops at a refusal: only the last call can be it.
  describe("a refusal by a name both phases have", () => {
    const denial = (hook: string, code = 400) => ({
      code,
      message: `admission webhook "${hook}" denied the request: spec.dnsNames: invalid`,
    });
    const mutation = (configuration: string, webhook: string, mutated: boolean) =>
      JSON.stringify({ configuration, webhook, mutated });
    const rows = (p: ReturnType<typeof parseAuditEvent>) =>
      p?.decisions.map((d) => [d.kind, d.hook, d.round, d.index, d.outcome]);

    it("is not a call that mutated: the mutation stays, the refusal is a validating webhook's", () => {
      const p = parseAuditEvent(
        event({
          responseStatus: denial("webhook.cert-manager.io"),
          annotations: {
            "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
              "cert-manager-webhook",
              "webhook.cert-manager.io",
              true,
            ),
          },
        }),
      );
      expect(rows(p)).toEqual([
        ["mutating-webhook", "webhook.cert-manager.io", 0, 0, "mutated"],
        ["webhook", "webhook.cert-manager.io", undefined, undefined, "denied"],
      ]);
      expect(p?.decisions[1]).toMatchObject({ code: 400, message: "spec.dnsNames: invalid" });
    });

    it("is not a call the phase went on after", () => {
      const p = parseAuditEvent(
        event({
          responseStatus: denial("policy.example.com", 403),
          annotations: {
            "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
              "a-cfg",
              "policy.example.com",
              false,
            ),
            "mutation.webhook.admission.k8s.io/round_0_index_1": mutation(
              "b-cfg",
              "sidecar.example.com",
              true,
            ),
          },
        }),
      );
      expect(rows(p)).toEqual([
        ["mutating-webhook", "policy.example.com", 0, 0, "admitted"],
        ["mutating-webhook", "sidecar.example.com", 0, 1, "mutated"],
        ["webhook", "policy.example.com", undefined, undefined, "denied"],
      ]);
    });

    it("is not a call whose patch was applied, even one that changed nothing", () => {
      const p = parseAuditEvent(
        event({
          level: "Request",
          responseStatus: denial("p.example.com"),
          annotations: {
            "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
              "c",
              "p.example.com",
              false,
            ),
            "patch.webhook.admission.k8s.io/round_0_index_0":
              '{"configuration":"c","webhook":"p.example.com","patch":[],"patchType":"JSONPatch"}',
          },
        }),
      );
      expect(rows(p)).toEqual([
        ["mutating-webhook", "p.example.com", 0, 0, "admitted"],
        ["webhook", "p.example.com", undefined, undefined, "denied"],
      ]);
    });

    it("is not a mutating call once the validating phase has begun", () => {
      const validating = {
        "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "v.example.com",
      };
      const audited = {
        "validation.policy.admission.k8s.io/validation_failure":
          '[{"message":"m","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]',
      };
      // A request over 500 ms: the validating webhooks' own latency, written once one was called.
      const slowValidating = {
        "apiserver.latency.k8s.io/validating-webhook": "1.002s",
        "apiserver.latency.k8s.io/total": "1.01s",
      };
      for (const extra of [validating, audited, slowValidating]) {
        const p = parseAuditEvent(
          event({
            responseStatus: denial("w.example.com"),
            annotations: {
              "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
                "c",
                "w.example.com",
                false,
              ),
              ...extra,
            },
          }),
        );
        expect(p?.decisions.find((d) => d.outcome === "denied")?.kind).toBe("webhook");
        expect(p?.decisions[0]).toMatchObject({ hook: "w.example.com", outcome: "admitted" });
      }
    });

    it("is not the mutating call when a same-named validating webhook timed out (cert-manager's)", () => {
      const p = parseAuditEvent(
        event({
          responseStatus: {
            code: 500,
            message:
              'Internal error occurred: failed calling webhook "webhook.cert-manager.io": failed to call webhook: Post "https://cm.svc:443/validate?timeout=1s": context deadline exceeded',
          },
          annotations: {
            "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
              "cert-manager-webhook",
              "webhook.cert-manager.io",
              false,
            ),
            "apiserver.latency.k8s.io/mutating-webhook": "3.1ms",
            "apiserver.latency.k8s.io/validating-webhook": "1.001s",
            "apiserver.latency.k8s.io/total": "1.02s",
          },
        }),
      );
      expect(rows(p)).toEqual([
        ["mutating-webhook", "webhook.cert-manager.io", 0, 0, "admitted"],
        ["webhook", "webhook.cert-manager.io", undefined, undefined, "timeout"],
      ]);
      // Without the validating phase's latency (a request under 500 ms) it cannot be told apart.
      const fast = parseAuditEvent(
        event({
          responseStatus: denial("webhook.cert-manager.io"),
          annotations: {
            "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
              "cert-manager-webhook",
              "webhook.cert-manager.io",
              false,
            ),
            "apiserver.latency.k8s.io/mutating-webhook": "600ms",
            "apiserver.latency.k8s.io/total": "610ms",
          },
        }),
      );
      expect(rows(fast)).toEqual([["mutating-webhook", "webhook.cert-manager.io", 0, 0, "denied"]]);
    });

    it("is the last call of the reinvocation round when it made one", () => {
      const p = parseAuditEvent(
        event({
          responseStatus: denial("m.example.com"),
          annotations: {
            "mutation.webhook.admission.k8s.io/round_0_index_0": mutation(
              "c",
              "m.example.com",
              true,
            ),
            "mutation.webhook.admission.k8s.io/round_0_index_1": mutation(
              "c",
              "n.example.com",
              true,
            ),
            "mutation.webhook.admission.k8s.io/round_1_index_0": mutation(
              "c",
              "m.example.com",
              false,
            ),
          },
        }),
      );
      expect(rows(p)).toEqual([
        ["mutating-webhook", "m.example.com", 0, 0, "mutated"],
        ["mutating-webhook", "n.example.com", 0, 1, "mutated"],
        ["mutating-webhook", "m.example.com", 1, 0, "denied"],
      ]);
    });
  });

  // A fail-closed call that times out: apierrors.NewInternalError(ErrCallingWebhook) → 500.
  it("tells a fail-closed timeout from another calling error", () => {
    const timeout = parseAuditEvent(
      event({
        responseStatus: {
          code: 500,
          reason: "InternalError",
          message:
            'Internal error occurred: failed calling webhook "sleep-fail.example.com": failed to call webhook: Post "https://127.0.0.1:40000/hooks/sleep-fail?timeout=1s": context deadline exceeded',
        },
      }),
    );
    expect(timeout?.decisions).toEqual([
      expect.objectContaining({
        kind: "webhook",
        hook: "sleep-fail.example.com",
        outcome: "timeout",
        code: 500,
      }),
    ]);
    expect(timeout?.decisions[0]?.message).toMatch(/^failed to call webhook: Post/);
    const refused = parseAuditEvent(
      event({
        responseStatus: {
          code: 500,
          message:
            'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/hooks/x": dial tcp 127.0.0.1:1: connect: connection refused',
        },
      }),
    );
    expect(refused?.decisions[0]).toMatchObject({ hook: "down.example.com", outcome: "error" });
  });
});

describe("parseAuditEvent: ValidatingAdmissionPolicy", () => {
  // policy/validating/dispatcher.go: NewForbidden(…"ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s").
  it("reads a policy denial from responseStatus", () => {
    const p = parseAuditEvent(
      event({
        responseStatus: {
          code: 422,
          reason: "Invalid",
          message:
            "configmaps \"cm1\" is forbidden: ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad-b' denied request: name must not be bad",
        },
      }),
    );
    expect(p?.decisions).toEqual([
      {
        kind: "validating-policy",
        hook: "no-bad",
        configuration: "no-bad-b",
        outcome: "rejected",
        code: 422,
        message: "name must not be bad",
      },
    ]);
  });

  it("reads Audit failures: warned when the binding also warns, one row per failure, no duplicate of a denial", () => {
    const p = parseAuditEvent(
      event({
        responseStatus: {
          code: 403,
          message:
            "configmaps \"cm1\" is forbidden: ValidatingAdmissionPolicy 'deny-p' with binding 'deny-b' denied request: nope",
        },
        annotations: {
          "validation.policy.admission.k8s.io/validation_failure": JSON.stringify([
            {
              message: "label missing",
              policy: "warn-p",
              binding: "warn-b",
              expressionIndex: 0,
              validationActions: ["Warn", "Audit"],
            },
            {
              message: "only audited",
              policy: "audit-p",
              binding: "audit-b",
              expressionIndex: 1,
              validationActions: ["Audit"],
            },
            {
              message: "nope",
              policy: "deny-p",
              binding: "deny-b",
              expressionIndex: 0,
              validationActions: ["Deny", "Audit"],
            },
          ]),
        },
      }),
    );
    expect(p?.decisions.map((d) => [d.hook, d.configuration, d.outcome, d.message])).toEqual([
      ["warn-p", "warn-b", "warned", "label missing"],
      ["audit-p", "audit-b", "audited", "only audited"],
      ["deny-p", "deny-b", "rejected", "nope"],
    ]);
  });
});

describe("parseAuditEvent: hostile and sensitive input", () => {
  it("never keeps Secret or token contents: objects and patches are removed", () => {
    const p = parseAuditEvent(
      event({
        level: "RequestResponse",
        objectRef: { resource: "secrets", namespace: "a", name: "s", apiVersion: "v1" },
        requestObject: { kind: "Secret", data: { password: "aHVudGVyMg==" } },
        responseObject: { kind: "Secret", data: { password: "aHVudGVyMg==" } },
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"p.example.com","mutated":true}',
          "patch.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"p.example.com","patch":[{"op":"add","path":"/data/token","value":"c2VjcmV0"}],"patchType":"JSONPatch"}',
        },
      }),
    );
    expect(p?.decisions[0]).toMatchObject({ hook: "p.example.com", outcome: "mutated" });
    expect(p?.decisions[0]?.patch).toBeUndefined();
    const text = JSON.stringify(p);
    expect(text).not.toContain("aHVudGVyMg==");
    expect(text).not.toContain("c2VjcmV0");
    const review = parseAuditEvent(
      event({
        objectRef: {
          resource: "tokenreviews",
          apiGroup: "authentication.k8s.io",
          apiVersion: "v1",
        },
        requestObject: { spec: { token: "eyJhbGciOi-secret-token" } },
        responseStatus: {
          code: 403,
          message: 'admission webhook "d.example.com" denied the request: no',
        },
      }),
    );
    expect(JSON.stringify(review)).not.toContain("secret-token");
  });

  it("drops large request objects from the raw event but keeps the facts", () => {
    const p = parseAuditEvent(
      event({
        level: "Request",
        requestObject: { data: { big: "x".repeat(200_000) } },
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"w","mutated":false}',
        },
      }),
    );
    const raw = JSON.parse(p?.raw ?? "{}") as Record<string, unknown>;
    expect(raw.requestObject).toBeUndefined();
    expect(raw.portcullisNote).toMatch(/too large/);
    expect(p?.request.name).toBe("cm1");
  });

  // endpoints/filters/audit_init.go keeps a client's Audit-ID header as it is, however long.
  it("reads an event whatever its audit ID's length, keeping the ID bounded and distinct", () => {
    const denied = (auditID: string) =>
      parseAuditEvent(
        event({
          auditID,
          responseStatus: {
            code: 400,
            message: 'admission webhook "deny.example.com" denied the request: nope',
          },
        }),
      );
    const long = `trace-${"a".repeat(130)}`;
    const a = denied(long);
    const b = denied(`${long}b`);
    expect(a?.decisions.map((d) => [d.hook, d.outcome])).toEqual([["deny.example.com", "denied"]]);
    expect(a?.auditID.startsWith(long.slice(0, 100))).toBe(true);
    expect(a?.auditID.length).toBeLessThanOrEqual(172);
    expect(a?.auditID).not.toBe(b?.auditID);
    expect(denied("x".repeat(100_000))?.auditID.length).toBeLessThanOrEqual(172);
    expect(denied("7e0cbcc6-8f1b-4b8f-a7b4-2f1f8a1d9f00")?.auditID).toBe(
      "7e0cbcc6-8f1b-4b8f-a7b4-2f1f8a1d9f00",
    );
  });

  it("bounds the raw event of one without objects: oversized annotation values are cut, marked", () => {
    const p = parseAuditEvent(
      event({
        annotations: {
          "w.example.com/k": "x".repeat(2_000_000),
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"m.example.com","mutated":false}',
        },
      }),
    );
    expect(p?.raw.length).toBeLessThanOrEqual(MAX_RAW_EVENT_CHARS);
    const raw = JSON.parse(p?.raw ?? "{}") as {
      annotations: Record<string, string>;
      portcullisNote: string;
    };
    expect(raw.portcullisNote).toMatch(
      /annotation values longer than \d+ characters cut.*too large/,
    );
    expect(raw.annotations["w.example.com/k"]).toMatch(/^x+… \(\d+ characters cut\)$/);
    expect(raw.annotations["mutation.webhook.admission.k8s.io/round_0_index_0"]).toBe(
      '{"configuration":"c","webhook":"m.example.com","mutated":false}',
    );
    expect(requestFactsOfRaw(p?.raw ?? "")).toEqual(p?.request);
  });

  it("bounds a raw event with objects and oversized annotations, saying what was left out", () => {
    const p = parseAuditEvent(
      event({
        level: "Request",
        requestObject: { data: { big: "y".repeat(200_000) } },
        annotations: {
          "w.example.com/k": "x".repeat(200_000),
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"m.example.com","mutated":false}',
        },
      }),
    );
    expect(p?.raw.length).toBeLessThanOrEqual(MAX_RAW_EVENT_CHARS);
    const raw = JSON.parse(p?.raw ?? "{}") as Record<string, unknown>;
    expect(raw.requestObject).toBeUndefined();
    expect(raw.portcullisNote).toMatch(
      /objects removed; annotation values .* cut: event too large/,
    );
  });

  it("keeps only the request facts of an event too large for any other cut", () => {
    const decided = {
      responseStatus: {
        code: 400,
        message: 'admission webhook "deny.example.com" denied the request: nope',
      },
    };
    const longURI = parseAuditEvent(
      event({
        ...decided,
        requestURI: `/api/v1/namespaces/team-a/configmaps?x=${"u".repeat(1_000_000)}`,
        impersonatedUser: { username: "jane", groups: ["devs"] },
        annotations: { "apiserver.latency.k8s.io/total": "1.2s" },
      }),
    );
    const longID = parseAuditEvent(event({ ...decided, auditID: "i".repeat(1_000_000) }));
    for (const p of [longURI, longID]) {
      expect(p?.raw.length).toBeLessThanOrEqual(MAX_RAW_EVENT_CHARS);
      expect(JSON.parse(p?.raw ?? "{}")).toMatchObject({
        portcullisNote: "only the request facts kept: event too large",
      });
      expect(requestFactsOfRaw(p?.raw ?? "")).toEqual(p?.request);
    }
    expect(longURI?.request).toMatchObject({ user: "jane", impersonatedBy: "editor" });
  });

  it("ignores malformed annotations and non-events without throwing", () => {
    const p = parseAuditEvent(
      event({
        annotations: {
          "mutation.webhook.admission.k8s.io/round_x_index_0": "{}",
          "mutation.webhook.admission.k8s.io/round_0_index_0": "not json",
          "validation.policy.admission.k8s.io/validation_failure": "{oops",
          n: 42,
        },
      }),
    );
    expect(p?.decisions).toEqual([
      expect.objectContaining({ hook: "", outcome: "admitted", round: 0, index: 0 }),
    ]);
    expect(parseAuditEvent(null)).toBeUndefined();
    expect(parseAuditEvent({ auditID: 7 })).toBeUndefined();
  });

  it("attributes a mutating policy's refusal, which the generic policy dispatcher words without its kind", () => {
    // policy/generic/policy_dispatcher.go PolicyError.Error().
    expect(
      readStatusMessage(
        "configmaps \"c\" is forbidden: policy 'add-label' with binding 'add-label-b' denied request: expression 'x' resulted in error: no such key: y",
      ),
    ).toEqual({
      by: "policy",
      kind: "mutating-policy",
      hook: "add-label",
      binding: "add-label-b",
      message: "expression 'x' resulted in error: no such key: y",
    });
    expect(readStatusMessage('policy "p" denied request: nope')).toMatchObject({
      kind: "mutating-policy",
      hook: "p",
      binding: "",
      message: "nope",
    });
    // Without the refusal right after it, "policy '…'" is just words.
    expect(readStatusMessage("the policy 'x' is unknown")).toBeUndefined();
  });

  it("reads the apiserver's phrases only where its error text starts, never inside a message", () => {
    // A policy's message quoting a webhook's denial (messageExpression can quote an annotation).
    expect(
      readStatusMessage(
        `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: admission webhook "evil.example.com" denied the request: not me`,
      ),
    ).toEqual({
      by: "policy",
      kind: "validating-policy",
      hook: "p",
      binding: "b",
      message: 'admission webhook "evil.example.com" denied the request: not me',
    });
    // A webhook's denial quoting a policy's refusal or a failed call.
    expect(
      readStatusMessage(
        `admission webhook "deny.example.com" denied the request: failed calling webhook "x.example.com": context deadline exceeded`,
      ),
    ).toMatchObject({ hook: "deny.example.com", outcome: "denied" });
    // An object name (RBAC names may hold quotes and spaces) shaped like a refusal: Go's %q
    // escapes its quotes, and the refusal that counts follows "is forbidden: ".
    expect(
      readStatusMessage(
        `clusterroles.rbac.authorization.k8s.io "x\\" is forbidden: ValidatingAdmissionPolicy 'fake' denied request: y" is forbidden: ValidatingAdmissionPolicy 'real' with binding 'rb' denied request: no`,
      ),
    ).toMatchObject({ hook: "real", binding: "rb", message: "no" });
    expect(
      readStatusMessage(`forbidden: ValidatingAdmissionPolicy 'p' denied request: m`),
    ).toMatchObject({ hook: "p", binding: "", message: "m" });
    // Anything else that only mentions a hook is not a refusal by it.
    expect(
      readStatusMessage(`something else: admission webhook "a.example.com" denied the request: x`),
    ).toBeUndefined();
    expect(
      readStatusMessage(`Operation cannot be fulfilled: failed calling webhook "a.example.com": x`),
    ).toBeUndefined();
  });

  it("reads the apiserver's refusals on a webhook's behalf, and the older wording of a failed call", () => {
    // mutating/dispatcher.go: a patch for an operation without an object.
    expect(
      readStatusMessage(
        `Internal error occurred: admission webhook "p.example.com" attempted to modify the object, which is not supported for this operation`,
      ),
    ).toEqual({
      by: "webhook",
      hook: "p.example.com",
      outcome: "error",
      message: "attempted to modify the object, which is not supported for this operation",
    });
    // NewDryRunUnsupportedErr (v1beta1 hooks with side effects).
    expect(readStatusMessage(`admission webhook "s.example.com" does not support dry run`)).toEqual(
      {
        by: "webhook",
        hook: "s.example.com",
        outcome: "error",
        message: "does not support dry run",
      },
    );
    expect(
      readStatusMessage(
        `Internal error occurred: failed calling admission webhook "old.example.com": Post "https://old.svc:443/?timeout=30s": context deadline exceeded`,
      ),
    ).toMatchObject({ hook: "old.example.com", outcome: "timeout" });
  });

  it("reads a hostile status message in linear time", () => {
    const hostile =
      'admission webhook "'.repeat(50_000) + 'failed calling webhook "'.repeat(50_000);
    const started = performance.now();
    readStatusMessage(hostile);
    readStatusMessage("ValidatingAdmissionPolicy '".repeat(100_000));
    readStatusMessage("policy '".repeat(100_000));
    // Not a timing test of speed, a guard against quadratic behaviour: 100k repeats would take minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("parseAuditEvent: stages", () => {
  /** An exec refused by a validating webhook after a mutating call, at one stage. */
  const exec = (stage: string, over: Record<string, unknown> = {}) =>
    event({
      stage,
      requestURI: "/api/v1/namespaces/team-a/pods/p/exec?command=sh&stdin=true",
      objectRef: {
        resource: "pods",
        namespace: "team-a",
        name: "p",
        apiVersion: "v1",
        subresource: "exec",
      },
      responseStatus: {
        metadata: {},
        status: "Failure",
        code: 403,
        message: 'admission webhook "deny-exec.example.com" denied the request: no exec',
      },
      annotations: {
        "mutation.webhook.admission.k8s.io/round_0_index_0":
          '{"configuration":"c","webhook":"m.example.com","mutated":false}',
      },
      ...over,
    });

  // endpoints/filters/audit.go: a long-running request's ResponseStarted carries what its
  // ResponseComplete (or Panic) carries again, from the same event object.
  it("reads a long-running request's decisions once, from its last event", () => {
    const out = parseEventList({
      kind: "EventList",
      items: [exec("RequestReceived"), exec("ResponseStarted"), exec("ResponseComplete")],
    });
    expect(out.map((e) => e.stage)).toEqual(["ResponseComplete"]);
    expect(out[0]?.request.operation).toBe("CONNECT");
    expect(out[0]?.decisions.map((d) => [d.kind, d.hook, d.outcome])).toEqual([
      ["mutating-webhook", "m.example.com", "admitted"],
      ["webhook", "deny-exec.example.com", "denied"],
    ]);
    const started = parseAuditEvent(exec("ResponseStarted"));
    expect(started?.decisions).toEqual([]);
    expect(started?.raw).toBe("");
  });

  it("reads the decisions of a request whose handler panicked", () => {
    const panicked = parseAuditEvent(
      exec("Panic", {
        responseStatus: {
          code: 500,
          status: "Failure",
          reason: "InternalError",
          message: "APIServer panic'd: boom",
        },
      }),
    );
    expect(panicked?.decisions.map((d) => [d.hook, d.outcome])).toEqual([
      ["m.example.com", "admitted"],
    ]);
  });
});

describe("parseEventList", () => {
  it("refuses anything that is not an EventList", () => {
    expect(() => parseEventList(null)).toThrow(/EventList/);
    expect(() => parseEventList({ kind: "EventList" })).toThrow(/items/);
    expect(() => parseEventList({ kind: "List", items: [] })).toThrow(/EventList/);
  });

  it("keeps only events that record an admission decision", () => {
    const out = parseEventList({
      kind: "EventList",
      items: [
        1,
        {},
        event({ auditID: "plain" }),
        event({
          auditID: "denied",
          responseStatus: {
            code: 403,
            message: 'admission webhook "d" denied the request: no',
          },
        }),
      ],
    });
    expect(out.map((e) => e.auditID)).toEqual(["denied"]);
  });
});

describe("parseTime", () => {
  it("reads every time as Date.parse does, the apiserver's form digit by digit", () => {
    const fixed = [
      "2026-11-23T11:34:40.125606Z",
      "2026-11-23T11:34:40.1Z",
      "2026-11-23T11:34:40.999999999Z",
      "2026-11-23T11:34:40Z",
      "2026-02-28T23:59:59.5Z",
      "2026-02-31T00:00:00Z",
      "2026-11-23T11:34:40+01:00",
      "2026-11-23T24:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-11-23T11:34:60Z",
      "2026-11-23T11:34:40.Z",
      "2026-11-23 11:34:40Z",
      "2026-11-23T11:34:4a.1Z",
      "0999-11-23T11:34:40Z",
      "",
      "soon",
    ];
    const random = Array.from({ length: 2000 }, (_, i) => {
      const s = new Date(Math.floor(Math.random() * 4e12)).toISOString();
      return i % 2 ? s.replace("Z", `${String(i % 1000).padStart(3, "0")}Z`) : s;
    });
    for (const s of [...fixed, ...random]) expect([s, parseTime(s)]).toEqual([s, Date.parse(s)]);
  });
});

describe("parseAuditEvent: the in-tree PodSecurity plugin", () => {
  // As kube-apiserver 1.37 records a pod PodSecurity refuses (enforce baseline, audit restricted).
  const refused =
    'pods "bad" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)';
  const audit =
    'would violate PodSecurity "restricted:latest": host namespaces (hostPID=true), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)';
  const pod = (code: number, annotations: Record<string, string>, message?: string) =>
    event({
      requestURI: "/api/v1/namespaces/psx/pods",
      objectRef: { resource: "pods", namespace: "psx", name: "bad", apiVersion: "v1" },
      responseStatus: {
        metadata: {},
        code,
        ...(message ? { status: "Failure", message, reason: "Forbidden" } : {}),
      },
      annotations: { "authorization.k8s.io/decision": "allow", ...annotations },
    });

  it("records its refusal and its audit standard's violations", () => {
    const p = parseAuditEvent(
      pod(
        403,
        {
          "pod-security.kubernetes.io/enforce-policy": "baseline:latest",
          "pod-security.kubernetes.io/audit-violations": audit,
        },
        refused,
      ),
    );
    expect(p?.decisions).toEqual([
      {
        kind: "pod-security",
        hook: "PodSecurity",
        configuration: "",
        outcome: "denied",
        code: 403,
        message: refused,
      },
      {
        kind: "pod-security",
        hook: "PodSecurity",
        configuration: "",
        outcome: "audited",
        message: audit,
      },
    ]);
  });

  it("records nothing for a pod it lets through without violations", () => {
    const p = parseAuditEvent(
      pod(201, { "pod-security.kubernetes.io/enforce-policy": "privileged:latest" }),
    );
    expect(p?.decisions).toEqual([]);
  });

  it("does not take a webhook's denial that quotes it, or a message without its evaluation, for its refusal", () => {
    const byWebhook = `admission webhook "guard.example.com" denied the request: ${refused}`;
    const w = parseAuditEvent(
      pod(403, { "pod-security.kubernetes.io/enforce-policy": "baseline:latest" }, byWebhook),
    );
    expect(w?.decisions.map((d) => `${d.kind}:${d.hook}`)).toEqual(["webhook:guard.example.com"]);
    expect(parseAuditEvent(pod(403, {}, refused))?.decisions).toEqual([]);
  });
});
