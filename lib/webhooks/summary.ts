/**
 * Flattens webhook configurations into rows for the list: one per hook, with v1 defaults made
 * explicit and short human summaries of rules, selectors and backend. Pure.
 */
import type { ManifestOrigin } from "@/lib/admission/model/manifests";
import type {
  AdmissionregistrationV1WebhookClientConfig,
  V1LabelSelector,
  V1RuleWithOperations,
} from "@/lib/k8s/types";
import { parseCaBundle } from "@/lib/admission/health/pem";
import { webhookDefaults } from "@/lib/admission/model/webhook-defaults";

/** A webhook as the list reads it: the fields shared by mutating, validating and legacy hooks. */
export interface HookLike {
  name?: string;
  clientConfig?: AdmissionregistrationV1WebhookClientConfig;
  rules?: V1RuleWithOperations[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: V1LabelSelector;
  objectSelector?: V1LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  reinvocationPolicy?: string;
  admissionReviewVersions?: string[];
  matchConditions?: Array<{ name?: string; expression?: string }>;
}

/** A webhook configuration of any served kind (initializers carry `initializers`). */
export interface ConfigLike {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string; uid?: string; creationTimestamp?: string };
  webhooks?: HookLike[];
  initializers?: Array<{ name?: string; rules?: V1RuleWithOperations[] }>;
}

/** A value and whether it came from the v1 default rather than the object. */
interface Defaulted<T> {
  value: T;
  defaulted: boolean;
}

export interface HookRow {
  /** Unique: `<kind>/<configuration>/<position>`. */
  id: string;
  kind: string;
  /** Resource name of the kind (e.g. validatingwebhookconfigurations), for links. */
  resource: string;
  configuration: string;
  hook: string;
  position: number;
  hookCount: number;
  failurePolicy: Defaulted<string>;
  timeoutSeconds: Defaulted<number>;
  sideEffects: string;
  matchPolicy: Defaulted<string>;
  reinvocationPolicy?: Defaulted<string>;
  rules: string;
  namespaceSelector: string;
  objectSelector: string;
  backend: string;
  /** Earliest notAfter among the caBundle's certificates (ISO), "" when none, "invalid" when unreadable. */
  caNotAfter: string;
  /** Set for a static configuration (loaded by the apiserver from a manifest file): its file. */
  origin?: ManifestOrigin;
}

function isV1beta1(apiVersion: string | undefined): boolean {
  return apiVersion?.endsWith("/v1beta1") ?? false;
}

/** One rule in a line: `CREATE,UPDATE apps/v1 deployments,deployments/scale (Namespaced)`. */
function ruleSummary(r: V1RuleWithOperations): string {
  const groups = (r.apiGroups ?? []).map((g) => (g === "" ? "core" : g)).join(",");
  const versions = (r.apiVersions ?? []).join(",");
  const gv = groups === "*" && versions === "*" ? "*" : `${groups}/${versions}`;
  const scope = r.scope && r.scope !== "*" ? ` (${r.scope})` : "";
  return `${(r.operations ?? []).join(",")} ${gv} ${(r.resources ?? []).join(",")}${scope}`;
}

/** All rules joined; "no rules" when empty (such a hook is never called). */
function rulesSummary(rules: V1RuleWithOperations[] | undefined): string {
  if (!rules || rules.length === 0) return "no rules";
  return rules.map(ruleSummary).join("; ");
}

/** A selector as text: `env=prod, runlevel notin (0,1)`; "all" for an empty selector. */
export function selectorSummary(sel: V1LabelSelector | undefined): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const op = e.operator;
    if (op === "Exists") parts.push(e.key);
    else if (op === "DoesNotExist") parts.push(`!${e.key}`);
    // An empty value is written "" (as the form reads it back): `a in (x,)` hid it.
    else
      parts.push(
        `${e.key} ${op.toLowerCase()} (${(e.values ?? []).map((v) => (v === "" ? '""' : v)).join(",")})`,
      );
  }
  return parts.length === 0 ? "all" : parts.join(", ");
}

/** `service ns/name:443/path` or the URL. */
function backendSummary(cc: AdmissionregistrationV1WebhookClientConfig | undefined): string {
  if (!cc) return "—";
  if (cc.url) return cc.url;
  const s = cc.service;
  if (!s) return "—";
  return `svc ${s.namespace}/${s.name}:${s.port ?? 443}${s.path ?? ""}`;
}

/**
 * A caBundle's expiry as the apiserver trusts it (ISO): the earliest notAfter among the
 * certificates valid at `now`; when none is, the latest one's. "invalid" when no certificate
 * parses; blocks that do not parse beside one that does are skipped, as the apiserver skips them.
 */
export function caNotAfter(caBundle: string | undefined, now: number = Date.now()): string {
  if (!caBundle) return "";
  const certs = parseCaBundle(caBundle).flatMap((c) => (c.ok ? [c] : []));
  if (certs.length === 0) return "invalid";
  const usable = certs.filter((c) => c.notBefore.getTime() <= now && now <= c.notAfter.getTime());
  const ends = (usable.length > 0 ? usable : certs).map((c) => c.notAfter.getTime());
  return new Date(usable.length > 0 ? Math.min(...ends) : Math.max(...ends)).toISOString();
}

/** Days from `now` until an ISO date (negative when past). */
export function daysLeft(iso: string, now: number = Date.now()): number {
  return Math.floor((Date.parse(iso) - now) / 86_400_000);
}

/**
 * Rows already made for a configuration object. Cached objects are never changed in place (a live
 * change replaces the object), so a list patched by one event makes rows for that one
 * configuration only, not for every hook again.
 */
const rowsOf = new WeakMap<ConfigLike, { resource: string; rows: HookRow[] }>();

/** Rows for every hook of every configuration (a configuration with no hooks still gets a row). */
export function hookRows(configs: readonly ConfigLike[], resource: string): HookRow[] {
  const out: HookRow[] = [];
  for (const c of configs) {
    let made = rowsOf.get(c);
    if (!made || made.resource !== resource) {
      made = { resource, rows: configHookRows(c, resource) };
      rowsOf.set(c, made);
    }
    for (const r of made.rows) out.push(r);
  }
  return out;
}

/** The rows of one configuration (pure). */
function configHookRows(c: ConfigLike, resource: string): HookRow[] {
  const out: HookRow[] = [];
  const name = c.metadata?.name ?? "";
  const kind = c.kind ?? resource;
  const defaults = webhookDefaults(isV1beta1(c.apiVersion) ? "v1beta1" : "v1");
  const mutating = kind.startsWith("Mutating");
  const hooks: HookLike[] = c.webhooks ?? c.initializers ?? [];
  const base = { kind, resource, configuration: name, hookCount: hooks.length };
  if (hooks.length === 0) {
    out.push({
      ...base,
      id: `${kind}/${name}/-`,
      hook: "",
      position: -1,
      failurePolicy: { value: "", defaulted: false },
      timeoutSeconds: { value: 0, defaulted: false },
      sideEffects: "",
      matchPolicy: { value: "", defaulted: false },
      rules: "",
      namespaceSelector: "",
      objectSelector: "",
      backend: "",
      caNotAfter: "",
    });
    return out;
  }
  hooks.forEach((h, position) => {
    out.push({
      ...base,
      id: `${kind}/${name}/${position}`,
      hook: h.name ?? "",
      position,
      failurePolicy: h.failurePolicy
        ? { value: h.failurePolicy, defaulted: false }
        : { value: defaults.failurePolicy, defaulted: true },
      timeoutSeconds:
        h.timeoutSeconds !== undefined
          ? { value: h.timeoutSeconds, defaulted: false }
          : { value: defaults.timeoutSeconds, defaulted: true },
      sideEffects: h.sideEffects ?? defaults.sideEffects ?? "",
      matchPolicy: h.matchPolicy
        ? { value: h.matchPolicy, defaulted: false }
        : { value: defaults.matchPolicy, defaulted: true },
      reinvocationPolicy: mutating
        ? h.reinvocationPolicy
          ? { value: h.reinvocationPolicy, defaulted: false }
          : { value: defaults.reinvocationPolicy, defaulted: true }
        : undefined,
      rules: rulesSummary(h.rules),
      namespaceSelector: selectorSummary(h.namespaceSelector),
      objectSelector: selectorSummary(h.objectSelector),
      backend: backendSummary(h.clientConfig),
      caNotAfter: caNotAfter(h.clientConfig?.caBundle),
    });
  });
  return out;
}
