import { describe, expect, it } from "vitest";
import {
  AdmissionConfigurationError,
  parseAdmissionConfiguration,
  pluginEntry,
} from "@/lib/admission/model/admission-configuration";
import { makeRequest } from "@/lib/admission/model/request";
import {
  PodSecurityConfigurationError,
  defaultPolicy,
  readPodSecurityConfig,
} from "./configuration";
import { ASSUMED_DEFAULTS, podSecurityVerdict } from "./admission";
import { policyToEvaluate } from "./labels";

const FILE = `
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: PodSecurity
    configuration:
      apiVersion: pod-security.admission.config.k8s.io/v1
      kind: PodSecurityConfiguration
      defaults:
        enforce: baseline
        warn: restricted
        warn-version: v1.30
      exemptions:
        usernames: [ci-bot]
        namespaces: [kube-system]
        runtimeClasses: [kata]
  - name: ValidatingAdmissionWebhook
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      staticManifestsDir: /etc/kubernetes/admission/validating-webhooks
  - name: ValidatingAdmissionPolicy
    path: vap.yaml
`;

describe("AdmissionConfiguration (admission/config.go ReadAdmissionConfiguration)", () => {
  const file = parseAdmissionConfiguration(FILE);

  it("lists each plugin with its inline configuration or its path", () => {
    expect(file.plugins.map((p) => [p.name, p.path, p.configuration !== undefined])).toEqual([
      ["PodSecurity", undefined, true],
      ["ValidatingAdmissionWebhook", undefined, true],
      ["ValidatingAdmissionPolicy", "vap.yaml", false],
    ]);
  });

  it("gives each plugin's staticManifestsDir", () => {
    expect(file.staticManifestsDirs).toEqual({
      ValidatingAdmissionWebhook: "/etc/kubernetes/admission/validating-webhooks",
    });
  });

  it.each([
    ["apiVersion: v1\nkind: Pod\n", /expected kind AdmissionConfiguration/],
    [
      "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugin: []\n",
      /unknown field "plugin"/,
    ],
    [
      "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [{path: x}]\n",
      /plugins\[0\].name/,
    ],
    ["a: [", /not YAML/],
  ])("refuses %j", (text, message) => {
    expect(() => parseAdmissionConfiguration(text)).toThrow(AdmissionConfigurationError);
    expect(() => parseAdmissionConfiguration(text)).toThrow(message);
  });
});

describe("PodSecurityConfiguration (pod-security-admission admission/api)", () => {
  const entry = pluginEntry(parseAdmissionConfiguration(FILE), "PodSecurity");
  const config = readPodSecurityConfig(entry?.configuration, "admission.yaml");

  it("fills unset defaults as SetDefaults_PodSecurityDefaults does", () => {
    expect(config.defaults).toEqual({
      enforce: "baseline",
      "enforce-version": "latest",
      audit: "privileged",
      "audit-version": "latest",
      warn: "restricted",
      "warn-version": "v1.30",
    });
    expect(readPodSecurityConfig(undefined, "f").defaults.enforce).toBe("privileged");
  });

  it("a namespace without labels gets the defaults; labels override mode by mode", () => {
    const d = defaultPolicy(config);
    expect(policyToEvaluate({}, d).policy).toEqual(d);
    const p = policyToEvaluate({ "pod-security.kubernetes.io/audit": "baseline" }, d).policy;
    expect(p.enforce.level).toBe("baseline");
    expect(p.audit.level).toBe("baseline");
    expect(p.warn.level).toBe("restricted");
  });

  it("refuses what ValidatePodSecurityConfiguration refuses, in its words and order", () => {
    const bad = {
      apiVersion: "pod-security.admission.config.k8s.io/v1",
      kind: "PodSecurityConfiguration",
      defaults: { enforce: "strict", "warn-version": "1.30" },
      exemptions: {
        namespaces: ["Kube_System", "a.b"],
        usernames: ["x", "", "x"],
        runtimeClasses: ["kata", "kata"],
      },
    };
    expect(() => readPodSecurityConfig(bad, "f")).toThrow(PodSecurityConfigurationError);
    expect(() => readPodSecurityConfig(bad, "f")).toThrow(
      `f: invalid PodSecurity configuration: [defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, defaults.warn-version: Invalid value: "1.30": must be "latest" or "v1.x", exemptions.namespaces[0]: Invalid value: "Kube_System": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), exemptions.namespaces[1]: Invalid value: "a.b": must not contain dots, exemptions.runtimeClasses[1]: Duplicate value: "kata", exemptions.usernames[1]: Invalid value: "": username must not be empty, exemptions.usernames[2]: Duplicate value: "x"]`,
    );
  });
});

describe("the verdict with the plugin's configuration (admission.go ValidatePod, EvaluatePod)", () => {
  const config = readPodSecurityConfig(
    pluginEntry(parseAdmissionConfiguration(FILE), "PodSecurity")?.configuration,
    "admission.yaml",
  );
  const privileged = (runtimeClassName?: string) => ({
    metadata: { name: "p" },
    spec: {
      ...(runtimeClassName ? { runtimeClassName } : {}),
      containers: [{ name: "c", image: "x", securityContext: { privileged: true } }],
    },
  });
  const pod = (ns: string, user = "alice", runtimeClassName?: string) =>
    makeRequest({
      resource: "pods",
      operation: "CREATE",
      namespace: ns,
      name: "p",
      kind: { kind: "Pod" },
      object: privileged(runtimeClassName),
      userInfo: { username: user, groups: [] },
    });

  it("an unlabelled namespace is enforced at the configured default", () => {
    const v = podSecurityVerdict(pod("team"), {}, config);
    expect(v?.rejection?.message).toBe(
      'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    );
    expect(v?.assumption).toBeUndefined();
  });

  it.each([
    ["namespace", pod("kube-system"), "namespace kube-system"],
    ["user", pod("team", "ci-bot"), "user ci-bot"],
    ["runtimeClass", pod("team", "alice", "kata"), "RuntimeClass kata"],
  ] as const)("exempt by %s: let through unevaluated, with the reason", (by, req, who) => {
    const v = podSecurityVerdict(req, {}, config);
    expect(v?.rejection).toBeUndefined();
    expect(v?.warnings).toEqual([]);
    expect(v?.exemption).toMatchObject({ by });
    expect(v?.exemption?.message).toContain(`${who} is exempt from Pod Security`);
    expect(v?.auditAnnotations).toEqual({ "pod-security.kubernetes.io/exempt": by });
  });

  it("without the configuration: the built-in defaults, and it says so", () => {
    const v = podSecurityVerdict(pod("kube-system", "ci-bot"), {});
    expect(v?.rejection).toBeUndefined();
    expect(v?.exemption).toBeUndefined();
    expect(v?.assumption).toBe(ASSUMED_DEFAULTS);
  });

  it("an exempt namespace labelled with a policy is warned about on create", () => {
    const v = podSecurityVerdict(
      makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        namespace: "kube-system",
        name: "kube-system",
        kind: { kind: "Namespace" },
        object: {
          metadata: {
            name: "kube-system",
            labels: { "pod-security.kubernetes.io/enforce": "restricted" },
          },
        },
      }),
      undefined,
      config,
    );
    expect(v?.warnings).toEqual([
      'namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored',
    ]);
  });
});
