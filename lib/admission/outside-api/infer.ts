/**
 * Hooks and policies configured outside the API, inferred from what the apiserver exposes when
 * their manifest directory cannot be read (KEP-5793: a `staticManifestsDir` per admission plugin,
 * objects named with the reserved suffix `.static.k8s.io`, absent from every list and 404 on GET).
 *
 * What can be known without the files (k8s.io/apiserver v0.37.2):
 * - `apiserver_manifest_admission_config_controller_*` report, per plugin with a directory, its
 *   loads and failed reloads, when the last of each happened and the hash of the set in force:
 *   that a plugin has a directory, never what it holds;
 * - policy metrics carry the policy's and the binding's names, so a static policy is named there
 *   with its reserved suffix as soon as one of its checks is counted;
 * - webhook metrics carry only the webhook's name (not its configuration's, which bears the
 *   suffix): a name no API configuration has is a static webhook when its plugin has a directory
 *   — or a webhook deleted since the apiserver started, which the metrics keep counting;
 * - audit annotations (`mutation.webhook.admission.k8s.io/round_R_index_I` names the mutating
 *   webhook's configuration; policy annotations and denials name the policy and binding), read as
 *   decisions: a configuration, policy or binding with the reserved suffix is static for certain.
 * Pure: the server gathers the scrapes, the decisions and the API's names and calls `inferOutsideApi`.
 */
import type { DeciderKind } from "@/lib/admission/audit/audit";
import type { AdmissionMetrics } from "@/lib/admission/health/metrics";
import {
  MANIFEST_PLUGINS,
  hasStaticSuffix,
  type ManifestPlugin,
} from "@/lib/admission/model/manifests";

/** The names of the configuration objects the dashboard knows (through the API, or read from files). */
export interface KnownNames {
  /** Webhook names of MutatingWebhookConfigurations. */
  readonly mutatingWebhooks: ReadonlySet<string>;
  /** Webhook names of ValidatingWebhookConfigurations. */
  readonly validatingWebhooks: ReadonlySet<string>;
  /** Names of MutatingAdmissionPolicies. */
  readonly mutatingPolicies: ReadonlySet<string>;
  /** Names of ValidatingAdmissionPolicies. */
  readonly validatingPolicies: ReadonlySet<string>;
}

/** A configuration object as far as its names go (webhook configurations and policies alike). */
interface Named {
  readonly metadata?: { readonly name?: string };
  readonly webhooks?: ReadonlyArray<{ readonly name?: string }>;
}

/** The names of webhook configurations and policies, for `inferOutsideApi`. */
export function knownNamesOf(lists: {
  readonly mutatingWebhookConfigurations?: readonly Named[];
  readonly validatingWebhookConfigurations?: readonly Named[];
  readonly mutatingAdmissionPolicies?: readonly Named[];
  readonly validatingAdmissionPolicies?: readonly Named[];
}): KnownNames {
  const hooks = (list: readonly Named[] | undefined) =>
    new Set((list ?? []).flatMap((c) => (c.webhooks ?? []).map((w) => w.name ?? "")));
  const names = (list: readonly Named[] | undefined) =>
    new Set((list ?? []).map((o) => o.metadata?.name ?? ""));
  return {
    mutatingWebhooks: hooks(lists.mutatingWebhookConfigurations),
    validatingWebhooks: hooks(lists.validatingWebhookConfigurations),
    mutatingPolicies: names(lists.mutatingAdmissionPolicies),
    validatingPolicies: names(lists.validatingAdmissionPolicies),
  };
}

/** One scrape of the apiserver's /metrics, folded, and when it was read (ms since the epoch). */
export interface MetricsScrape {
  readonly at: number;
  readonly metrics: AdmissionMetrics;
}

/** The stored decisions of one (decider kind, hook, configuration), counted. */
export interface DecisionSighting {
  readonly kind: DeciderKind;
  /** Webhook or policy name. */
  readonly hook: string;
  /** Webhook configuration (webhooks) or binding (policies), empty when the event did not tell. */
  readonly configuration: string;
  readonly calls: number;
  /** Calls that failed rather than decided: error, timeout, failed-open. */
  readonly errors: number;
  /** First and last decision's time (ms since the epoch). */
  readonly first: number;
  readonly last: number;
}

/** Why a hook or policy is taken to be configured outside the API. */
type OutsideApiEvidence =
  /** It, its configuration or its binding bears the reserved suffix: static for certain. */
  | "reserved-name"
  /**
   * No API object has its name and its plugin has a manifest directory: static, unless it is a
   * webhook deleted since the apiserver started (metrics keep counting those).
   */
  | "unknown-name";

/** One hook or policy the apiserver runs that no API object holds. */
export interface OutsideApiHook {
  readonly plugin: ManifestPlugin;
  /** The webhook's name, or the policy's. */
  readonly name: string;
  /** Webhook configurations (known from audit annotations) or the policy's bindings. */
  readonly parents: readonly string[];
  readonly evidence: OutsideApiEvidence;
  /** Where it was seen: the apiserver's metrics, stored decisions (audit events). */
  readonly seenIn: ReadonlyArray<"metrics" | "audit">;
  /** First and last time it was seen called (ms since the epoch), when known. */
  readonly firstSeen?: number;
  readonly lastSeen?: number;
  /**
   * Calls the apiserver counted since it started (webhooks; for a policy, the checks its metrics
   * count), else the stored decisions naming it.
   */
  readonly calls: number;
  /** Failed calls or evaluations, counted the same way. */
  readonly errors: number;
}

/** One plugin's manifest directory as the apiserver reports it (no files, no names). */
interface ManifestPluginState {
  readonly plugin: ManifestPlugin;
  /** Hashes of the set in force (one per apiserver reporting). */
  readonly hashes: readonly string[];
  readonly loads: number;
  readonly failedReloads: number;
  /** Last successful load and last failed reload (ms since the epoch). */
  readonly lastLoad?: number;
  readonly lastFailure?: number;
}

export interface OutsideApiReport {
  /** The plugins the apiserver says have a manifest directory, in the order of admission. */
  readonly plugins: readonly ManifestPluginState[];
  /** The hooks and policies seen that neither the API nor the files read hold, by plugin then name. */
  readonly hooks: readonly OutsideApiHook[];
}

const WEBHOOK_PLUGIN: Readonly<Record<string, ManifestPlugin>> = {
  admit: "MutatingAdmissionWebhook",
  validating: "ValidatingAdmissionWebhook",
};

const POLICY_PLUGIN: Readonly<Record<string, ManifestPlugin>> = {
  MutatingAdmissionPolicy: "MutatingAdmissionPolicy",
  ValidatingAdmissionPolicy: "ValidatingAdmissionPolicy",
};

const isWebhookPlugin = (p: ManifestPlugin) =>
  p === "MutatingAdmissionWebhook" || p === "ValidatingAdmissionWebhook";

/** Whether a name is held by a known object of the plugin. */
function known(names: readonly KnownNames[], plugin: ManifestPlugin, name: string): boolean {
  if (names.length === 0) return false;
  const field: keyof KnownNames =
    plugin === "MutatingAdmissionWebhook"
      ? "mutatingWebhooks"
      : plugin === "ValidatingAdmissionWebhook"
        ? "validatingWebhooks"
        : plugin === "MutatingAdmissionPolicy"
          ? "mutatingPolicies"
          : "validatingPolicies";
  return names.some((n) => n[field].has(name));
}

interface Draft {
  plugin: ManifestPlugin;
  name: string;
  parents: Set<string>;
  reserved: boolean;
  seenIn: Set<"metrics" | "audit">;
  firstSeen?: number;
  lastSeen?: number;
  metricCalls?: number;
  metricErrors?: number;
  decisionCalls: number;
  decisionErrors: number;
}

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);
const latest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

/** The plugin a decision's decider belongs to; a webhook of unknown phase goes where its name is seen. */
function pluginOfDecision(
  d: DecisionSighting,
  metricPlugins: ReadonlyMap<string, ManifestPlugin>,
  directories: ReadonlySet<ManifestPlugin>,
): ManifestPlugin | undefined {
  switch (d.kind) {
    case "mutating-webhook":
      return "MutatingAdmissionWebhook";
    case "validating-webhook":
      return "ValidatingAdmissionWebhook";
    case "mutating-policy":
      return "MutatingAdmissionPolicy";
    case "validating-policy":
      return "ValidatingAdmissionPolicy";
    case "webhook":
      // A denial or fail-closed error read from the response status: its phase is not written.
      return (
        metricPlugins.get(d.hook) ??
        (directories.has("ValidatingAdmissionWebhook") ||
        !directories.has("MutatingAdmissionWebhook")
          ? "ValidatingAdmissionWebhook"
          : "MutatingAdmissionWebhook")
      );
    case "pod-security":
      return undefined;
  }
}

/**
 * The hooks and policies the apiserver runs that are configured outside the API, from its
 * metrics (the scrapes in the dashboard's window, oldest first) and the stored decisions, less
 * every name the API's objects and the static objects read from files hold.
 */
export function inferOutsideApi(input: {
  readonly scrapes: readonly MetricsScrape[];
  readonly decisions: readonly DecisionSighting[];
  /** The API's objects. */
  readonly api: KnownNames;
  /** The static objects read from the manifest directory, when it was given. */
  readonly files?: KnownNames;
}): OutsideApiReport {
  const latestScrape = input.scrapes.at(-1);
  const all = [input.api, ...(input.files ? [input.files] : [])];
  const plugins: ManifestPluginState[] = [];
  for (const plugin of MANIFEST_PLUGINS) {
    const m = latestScrape?.metrics.manifests.get(plugin);
    if (!m) continue;
    plugins.push({
      plugin,
      hashes: [...new Set(Object.values(m.hashes))].sort(),
      loads: m.reloads.success,
      failedReloads: m.reloads.failure,
      ...(m.lastReload.success !== undefined && { lastLoad: m.lastReload.success * 1000 }),
      ...(m.lastReload.failure !== undefined && { lastFailure: m.lastReload.failure * 1000 }),
    });
  }
  const directories = new Set(plugins.map((p) => p.plugin));

  const drafts = new Map<string, Draft>();
  const draft = (plugin: ManifestPlugin, name: string): Draft => {
    const k = `${plugin}/${name}`;
    let d = drafts.get(k);
    if (!d) {
      d = {
        plugin,
        name,
        parents: new Set(),
        reserved: hasStaticSuffix(name),
        seenIn: new Set(),
        decisionCalls: 0,
        decisionErrors: 0,
      };
      drafts.set(k, d);
    }
    return d;
  };

  // Metrics: the latest scrape counts; the window tells when a series appeared and last grew.
  const metricPlugins = new Map<string, ManifestPlugin>();
  if (latestScrape) {
    for (const w of latestScrape.metrics.webhooks.values()) {
      const plugin = WEBHOOK_PLUGIN[w.type];
      if (!plugin) continue;
      metricPlugins.set(w.name, plugin);
      if (known(all, plugin, w.name)) continue;
      const d = draft(plugin, w.name);
      d.seenIn.add("metrics");
      d.metricCalls = (d.metricCalls ?? 0) + w.calls;
      d.metricErrors =
        (d.metricErrors ?? 0) +
        w.failOpen +
        (w.rejections.calling_webhook_error ?? 0) +
        (w.rejections.apiserver_internal_error ?? 0);
      const key = `${w.type}/${w.name}`;
      const seen = seenInWindow(input.scrapes, (m) => m.webhooks.get(key)?.calls);
      d.firstSeen = earliest(d.firstSeen, seen.first);
      d.lastSeen = latest(d.lastSeen, seen.last);
    }
    for (const [key, p] of latestScrape.metrics.policies) {
      const plugin = POLICY_PLUGIN[p.kind];
      if (!plugin || known(all, plugin, p.policy)) continue;
      const d = draft(plugin, p.policy);
      d.seenIn.add("metrics");
      if (p.binding !== "") d.parents.add(p.binding);
      if (hasStaticSuffix(p.binding)) d.reserved = true;
      d.metricCalls = (d.metricCalls ?? 0) + p.checks;
      d.metricErrors = (d.metricErrors ?? 0) + p.evaluationErrors;
      const seen = seenInWindow(input.scrapes, (m) => m.policies.get(key)?.checks);
      d.firstSeen = earliest(d.firstSeen, seen.first);
      d.lastSeen = latest(d.lastSeen, seen.last);
    }
  }

  for (const s of input.decisions) {
    const plugin = pluginOfDecision(s, metricPlugins, directories);
    if (!plugin || s.hook === "" || (input.files && known([input.files], plugin, s.hook))) continue;
    // An API webhook's name may be a static one's too: its configuration tells them apart.
    if (
      known([input.api], plugin, s.hook) &&
      !(isWebhookPlugin(plugin) && hasStaticSuffix(s.configuration))
    )
      continue;
    const d = draft(plugin, s.hook);
    d.seenIn.add("audit");
    if (s.configuration !== "") d.parents.add(s.configuration);
    if (hasStaticSuffix(s.configuration)) d.reserved = true;
    d.decisionCalls += s.calls;
    d.decisionErrors += s.errors;
    d.firstSeen = earliest(d.firstSeen, s.first);
    d.lastSeen = latest(d.lastSeen, s.last);
  }

  const hooks: OutsideApiHook[] = [];
  for (const d of drafts.values()) {
    // A name the API lacks is a static object's only where the plugin loads some; a policy of the
    // API always bears another name, so an unsuffixed unknown policy is a deleted one.
    const evidence: OutsideApiEvidence | undefined = d.reserved
      ? "reserved-name"
      : isWebhookPlugin(d.plugin) && directories.has(d.plugin)
        ? "unknown-name"
        : undefined;
    if (!evidence) continue;
    hooks.push({
      plugin: d.plugin,
      name: d.name,
      parents: [...d.parents].sort(),
      evidence,
      seenIn: (["metrics", "audit"] as const).filter((s) => d.seenIn.has(s)),
      ...(d.firstSeen !== undefined && { firstSeen: d.firstSeen }),
      ...(d.lastSeen !== undefined && { lastSeen: d.lastSeen }),
      calls: d.metricCalls ?? d.decisionCalls,
      errors: d.metricErrors ?? d.decisionErrors,
    });
  }
  const order = (p: ManifestPlugin) => MANIFEST_PLUGINS.indexOf(p);
  hooks.sort(
    (a, b) => order(a.plugin) - order(b.plugin) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return { plugins, hooks };
}

/**
 * When a series first appeared in the window (its first scrape, when the series was there from
 * the start) and when its count last grew (the scrape that saw it grow; the first scrape when it
 * had counted calls already and never grew since).
 */
function seenInWindow(
  scrapes: readonly MetricsScrape[],
  count: (m: AdmissionMetrics) => number | undefined,
): { first?: number; last?: number } {
  let first: number | undefined;
  let last: number | undefined;
  let previous: number | undefined;
  for (const s of scrapes) {
    const n = count(s.metrics);
    if (n === undefined) continue;
    if (first === undefined) {
      first = s.at;
      if (n > 0) last = s.at;
    } else if (previous !== undefined && n > previous) last = s.at;
    previous = n;
  }
  return { ...(first !== undefined && { first }), ...(last !== undefined && { last }) };
}

/** The sentence the pages show: "N hooks or policies are configured outside the API". */
export function outsideApiSentence(report: Pick<OutsideApiReport, "hooks" | "plugins">): string {
  const n = report.hooks.length;
  if (n === 0) {
    return report.plugins.length === 0
      ? "No hooks or policies are configured outside the API."
      : `The apiserver loads manifests for ${report.plugins.map((p) => p.plugin).join(", ")}; none of their hooks or policies has been seen called yet.`;
  }
  return `${n} ${n === 1 ? "hook or policy is" : "hooks or policies are"} configured outside the API.`;
}
