/**
 * What the apiserver's own /metrics say about admission hooks and policies, folded per hook.
 * Pure and linear in the scrape's size: lines are filtered by prefix before anything is parsed,
 * and label sets are read by a hand-written scanner (no backtracking patterns over cluster data).
 *
 * Series (k8s.io/apiserver pkg/admission/metrics, plugin/policy/validating/metrics):
 * - apiserver_admission_webhook_admission_duration_seconds (histogram; name, type, operation, rejected)
 * - apiserver_admission_webhook_request_total (name, type, operation, code, rejected)
 * - apiserver_admission_webhook_rejection_count (name, type, operation, error_type, rejection_code)
 * - apiserver_admission_webhook_fail_open_count (name, type)
 * - apiserver_admission_match_condition_evaluation_errors_total / _exclusions_total (name, kind, type, operation)
 * - apiserver_validating_admission_policy_check_total / _check_duration_seconds (policy, policy_binding, error_type, enforcement_action)
 * - apiserver_mutating_admission_policy_check_total / _check_duration_seconds (policy, policy_binding,
 *   error_type; plugin/policy/mutating/metrics): one observation per mutation expression evaluated,
 *   success (`no_error`) included; none when the policy's matchConditions exclude the request or
 *   there is no object (DELETE). Buckets stop at 1 s, as the validating ones do.
 * - apiserver_manifest_admission_config_controller_automatic_reloads_total / _automatic_reload_last_timestamp_seconds
 *   (status, plugin, apiserver_id_hash) and _last_config_info (plugin, apiserver_id_hash, hash; value 1):
 *   the static manifest directories of the four admission plugins (KEP-5793, 1.36+,
 *   pkg/admission/plugin/manifest/metrics): the initial load counts as a successful reload, so a
 *   plugin with a directory always has a series and its hash.
 * Label sets change between versions, so every label is read as found and missing ones are
 * tolerated (older apiservers lack request_total and fail_open_count: counts then come from the
 * histogram). Series are keyed by the hook's *name* only (kubernetes#79832): two configurations
 * with same-named hooks share them.
 */

type Labels = Readonly<Record<string, string>>;

export interface Sample {
  readonly metric: string;
  readonly labels: Labels;
  readonly value: number;
}

const PREFIXES = [
  "apiserver_admission_webhook_",
  "apiserver_admission_match_condition_",
  "apiserver_validating_admission_policy_",
  "apiserver_mutating_admission_policy_",
  "apiserver_manifest_admission_config_controller_",
];

/** Reads `{a="x",b="y\"z"}` starting at `i` (the `{`); returns the labels and the index after `}`. */
function readLabels(
  line: string,
  i: number,
): { labels: Record<string, string>; next: number } | undefined {
  const labels: Record<string, string> = {};
  let p = i + 1;
  // The next backslash and quote at or after the read position, found afresh only once passed: the
  // searches move forward only, so a line costs one pass however many labels it has.
  let nextEscape = line.indexOf("\\", p);
  let nextQuote = line.indexOf('"', p);
  for (;;) {
    while (line[p] === " " || line[p] === ",") p++;
    if (line[p] === "}") return { labels, next: p + 1 };
    const eq = line.indexOf("=", p);
    if (eq === -1 || line[eq + 1] !== '"') return undefined;
    const key = line.slice(p, eq).trim();
    let q = eq + 2;
    let value = "";
    // Copy runs between escapes in one slice each: most values have no escape at all.
    for (;;) {
      if (nextQuote !== -1 && nextQuote < q) nextQuote = line.indexOf('"', q);
      const quote = nextQuote;
      if (quote === -1) return undefined;
      if (nextEscape !== -1 && nextEscape < q) nextEscape = line.indexOf("\\", q);
      const escape = nextEscape;
      if (escape === -1 || escape > quote) {
        value += line.slice(q, quote);
        q = quote;
        break;
      }
      if (escape + 1 >= line.length) return undefined;
      const c = line[escape + 1];
      value += line.slice(q, escape) + (c === "n" ? "\n" : c);
      q = escape + 2;
    }
    if (q >= line.length) return undefined;
    labels[key] = value;
    p = q + 1;
  }
}

/** The admission samples of a Prometheus text scrape (other metrics are skipped unread). */
export function parseAdmissionSamples(text: string): Sample[] {
  const out: Sample[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    // Most of a scrape is other metrics: skip them without copying the line.
    const at = start;
    start = end + 1;
    if (!PREFIXES.some((p) => text.startsWith(p, at))) continue;
    const line = text.slice(at, end);
    const brace = line.indexOf("{");
    const space = line.indexOf(" ");
    let metric: string;
    let labels: Record<string, string> = {};
    let rest: string;
    if (brace !== -1 && (space === -1 || brace < space)) {
      metric = line.slice(0, brace);
      const read = readLabels(line, brace);
      if (!read) continue;
      labels = read.labels;
      rest = line.slice(read.next);
    } else {
      if (space === -1) continue;
      metric = line.slice(0, space);
      rest = line.slice(space);
    }
    const trimmed = rest.trimStart();
    const gap = trimmed.indexOf(" ");
    const value = Number(gap === -1 ? trimmed : trimmed.slice(0, gap));
    if (Number.isNaN(value)) continue;
    out.push({ metric, labels, value });
  }
  return out;
}

/** One webhook's (name, type) series, summed over the other labels. */
export interface WebhookMetrics {
  readonly name: string;
  /** "admit" (mutating) or "validating". */
  readonly type: string;
  /** Calls (request_total, else the histogram's count). */
  calls: number;
  /** Calls whose request was rejected (`rejected="true"`). */
  rejected: number;
  /** By HTTP code as the metrics label it (a timeout or transport error is 503 here). */
  byCode: Record<string, number>;
  /** Rejections by error_type: no_error (a denial), calling_webhook_error, apiserver_internal_error. */
  rejections: Record<string, number>;
  failOpen: number;
  matchConditionErrors: number;
  matchConditionExclusions: number;
  /** Cumulative histogram: upper bounds (seconds) and counts, ascending, +Inf last. */
  buckets: Array<[number, number]>;
  durationCount: number;
  durationSum: number;
}

export type PolicyKind = "ValidatingAdmissionPolicy" | "MutatingAdmissionPolicy";

/** One admission policy binding's checks, as the apiserver counts them for its kind. */
export interface PolicyMetrics {
  readonly kind: PolicyKind;
  readonly policy: string;
  readonly binding: string;
  /**
   * Validating: expressions that denied, warned, audited or failed (clean admits are not
   * counted). Mutating: every mutation expression evaluated.
   */
  checks: number;
  /** By enforcement_action (allow, deny, warn, audit…); empty for mutating policies, which have none. */
  byAction: Record<string, number>;
  /** By error_type as the scrape labels them (no_error included). */
  errors: Record<string, number>;
  /**
   * Evaluations that failed rather than decided. Mutating: every error_type but no_error.
   * Validating: compile_error and out_of_budget, and invalid_error only under action "allow" (an
   * error the failurePolicy Ignore let through): the apiserver labels every denial invalid_error
   * too, so a failing expression under failurePolicy Fail cannot be told from a denial.
   */
  evaluationErrors: number;
  buckets: Array<[number, number]>;
  durationCount: number;
  durationSum: number;
}

/**
 * One admission plugin's static manifest directory as the apiserver reports it: present only for
 * plugins given a `staticManifestsDir` (summed over apiserver identities when several report).
 */
interface ManifestConfigMetrics {
  /** The plugin's registered name: MutatingAdmissionWebhook, ValidatingAdmissionPolicy, … */
  readonly plugin: string;
  /** Loads that succeeded (the one at start included) and reloads that failed (the previous set kept). */
  reloads: { success: number; failure: number };
  /** When the last load of each status happened (seconds since the epoch), when reported. */
  lastReload: { success?: number; failure?: number };
  /** The hash of the set in force (`sha256:…`), by apiserver identity hash. */
  hashes: Record<string, string>;
}

export interface AdmissionMetrics {
  webhooks: Map<string, WebhookMetrics>;
  policies: Map<string, PolicyMetrics>;
  /** By plugin name: the plugins with a static manifest directory. */
  manifests: Map<string, ManifestConfigMetrics>;
  /** Label names seen per metric: what this apiserver version reports. */
  labelNames: Record<string, string[]>;
}

export function webhookKey(name: string, type: string): string {
  return `${type}/${name}`;
}

/** The key of a policy binding's metrics: a validating and a mutating policy may share names. */
export function policyKey(kind: PolicyKind, policy: string, binding: string): string {
  return `${kind}/${policy}/${binding}`;
}

const VALIDATING_POLICY = "apiserver_validating_admission_policy_check";
const MANIFEST_CONFIG = "apiserver_manifest_admission_config_controller_";
const MUTATING_POLICY = "apiserver_mutating_admission_policy_check";

/** Whether one check_total series counts failed evaluations (see PolicyMetrics.evaluationErrors). */
function isEvaluationError(kind: PolicyKind, l: Labels): boolean {
  const e = l.error_type ?? "unknown";
  if (e === "no_error") return false;
  if (kind === "MutatingAdmissionPolicy") return true;
  return e !== "invalid_error" || l.enforcement_action === "allow";
}

function addBucket(buckets: Array<[number, number]>, le: string | undefined, value: number): void {
  const bound = le === "+Inf" ? Infinity : Number(le);
  if (Number.isNaN(bound)) return;
  const at = buckets.findIndex((b) => b[0] === bound);
  if (at === -1) buckets.push([bound, value]);
  else buckets[at]![1] += value;
}

/** Folds a scrape into per-hook and per-binding metrics. */
export function foldAdmissionMetrics(text: string): AdmissionMetrics {
  const webhooks = new Map<string, WebhookMetrics>();
  const policies = new Map<string, PolicyMetrics>();
  const labelNames: Record<string, Set<string>> = {};
  let sawRequestTotal = false;
  const hook = (l: Labels): WebhookMetrics => {
    const name = l.name ?? "";
    const type = l.type ?? "";
    const k = webhookKey(name, type);
    let w = webhooks.get(k);
    if (!w) {
      w = {
        name,
        type,
        calls: 0,
        rejected: 0,
        byCode: {},
        rejections: {},
        failOpen: 0,
        matchConditionErrors: 0,
        matchConditionExclusions: 0,
        buckets: [],
        durationCount: 0,
        durationSum: 0,
      };
      webhooks.set(k, w);
    }
    return w;
  };
  const policy = (kind: PolicyKind, l: Labels): PolicyMetrics => {
    const k = policyKey(kind, l.policy ?? "", l.policy_binding ?? "");
    let p = policies.get(k);
    if (!p) {
      p = {
        kind,
        policy: l.policy ?? "",
        binding: l.policy_binding ?? "",
        checks: 0,
        byAction: {},
        errors: {},
        evaluationErrors: 0,
        buckets: [],
        durationCount: 0,
        durationSum: 0,
      };
      policies.set(k, p);
    }
    return p;
  };
  const policySample = (kind: PolicyKind, suffix: string, s: Sample): void => {
    const l = s.labels;
    switch (suffix) {
      case "_total": {
        const p = policy(kind, l);
        p.checks += s.value;
        if (l.enforcement_action !== undefined) {
          const a = l.enforcement_action;
          p.byAction[a] = (p.byAction[a] ?? 0) + s.value;
        }
        const e = l.error_type ?? "unknown";
        p.errors[e] = (p.errors[e] ?? 0) + s.value;
        if (isEvaluationError(kind, l)) p.evaluationErrors += s.value;
        break;
      }
      case "_duration_seconds_bucket":
        addBucket(policy(kind, l).buckets, l.le, s.value);
        break;
      case "_duration_seconds_count":
        policy(kind, l).durationCount += s.value;
        break;
      case "_duration_seconds_sum":
        policy(kind, l).durationSum += s.value;
        break;
    }
  };
  const manifests = new Map<string, ManifestConfigMetrics>();
  const manifest = (l: Labels): ManifestConfigMetrics => {
    const plugin = l.plugin ?? "";
    let m = manifests.get(plugin);
    if (!m) {
      m = { plugin, reloads: { success: 0, failure: 0 }, lastReload: {}, hashes: {} };
      manifests.set(plugin, m);
    }
    return m;
  };
  const manifestSample = (suffix: string, s: Sample): void => {
    const l = s.labels;
    const status = l.status === "success" || l.status === "failure" ? l.status : undefined;
    switch (suffix) {
      case "automatic_reloads_total":
        if (status) manifest(l).reloads[status] += s.value;
        break;
      case "automatic_reload_last_timestamp_seconds":
        if (status) {
          const m = manifest(l);
          m.lastReload[status] = Math.max(m.lastReload[status] ?? 0, s.value);
        }
        break;
      case "last_config_info":
        if (l.hash !== undefined && s.value > 0)
          manifest(l).hashes[l.apiserver_id_hash ?? ""] = l.hash;
        break;
    }
  };
  const histogramRejected = new Map<string, number>();
  for (const s of parseAdmissionSamples(text)) {
    const names = (labelNames[s.metric] ??= new Set());
    for (const k of Object.keys(s.labels)) if (k !== "le") names.add(k);
    const l = s.labels;
    switch (s.metric) {
      case "apiserver_admission_webhook_request_total": {
        sawRequestTotal = true;
        const w = hook(l);
        w.calls += s.value;
        if (l.rejected === "true") w.rejected += s.value;
        const code = l.code ?? "unknown";
        w.byCode[code] = (w.byCode[code] ?? 0) + s.value;
        break;
      }
      case "apiserver_admission_webhook_rejection_count": {
        const w = hook(l);
        const t = l.error_type ?? "unknown";
        w.rejections[t] = (w.rejections[t] ?? 0) + s.value;
        break;
      }
      case "apiserver_admission_webhook_fail_open_count":
        hook(l).failOpen += s.value;
        break;
      case "apiserver_admission_webhook_admission_duration_seconds_bucket":
        addBucket(hook(l).buckets, l.le, s.value);
        break;
      case "apiserver_admission_webhook_admission_duration_seconds_count": {
        const w = hook(l);
        w.durationCount += s.value;
        if (l.rejected === "true") {
          const k = webhookKey(w.name, w.type);
          histogramRejected.set(k, (histogramRejected.get(k) ?? 0) + s.value);
        }
        break;
      }
      case "apiserver_admission_webhook_admission_duration_seconds_sum":
        hook(l).durationSum += s.value;
        break;
      case "apiserver_admission_match_condition_evaluation_errors_total":
        if ((l.kind ?? "webhook") === "webhook") hook(l).matchConditionErrors += s.value;
        break;
      case "apiserver_admission_match_condition_exclusions_total":
        if ((l.kind ?? "webhook") === "webhook") hook(l).matchConditionExclusions += s.value;
        break;
      default:
        if (s.metric.startsWith(MANIFEST_CONFIG))
          manifestSample(s.metric.slice(MANIFEST_CONFIG.length), s);
        else if (s.metric.startsWith(VALIDATING_POLICY))
          policySample("ValidatingAdmissionPolicy", s.metric.slice(VALIDATING_POLICY.length), s);
        else if (s.metric.startsWith(MUTATING_POLICY))
          policySample("MutatingAdmissionPolicy", s.metric.slice(MUTATING_POLICY.length), s);
    }
  }
  // Apiservers without request_total: calls and rejections from the latency histogram.
  if (!sawRequestTotal) {
    for (const [k, w] of webhooks) {
      w.calls = w.durationCount;
      w.rejected = histogramRejected.get(k) ?? 0;
    }
  }
  for (const w of webhooks.values()) w.buckets.sort((a, b) => a[0] - b[0]);
  for (const p of policies.values()) p.buckets.sort((a, b) => a[0] - b[0]);
  return {
    webhooks,
    policies,
    manifests,
    labelNames: Object.fromEntries(Object.entries(labelNames).map(([k, v]) => [k, [...v].sort()])),
  };
}

/**
 * The q-quantile (0–1) of a cumulative histogram, interpolated linearly inside the bucket it
 * falls in, as Prometheus' histogram_quantile does. Undefined without observations; the highest
 * finite bound when it falls in +Inf.
 */
export function histogramQuantile(
  q: number,
  buckets: ReadonlyArray<readonly [number, number]>,
): number | undefined {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let prevBound = 0;
  let prevCount = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      if (bound === Infinity) return prevBound;
      if (count === prevCount) return bound;
      return prevBound + ((bound - prevBound) * (rank - prevCount)) / (count - prevCount);
    }
    prevBound = bound;
    prevCount = count;
  }
  return prevBound;
}

/** The histogram bucket a quantile falls in: (lower, upper] in seconds, upper Infinity for +Inf. */
export interface QuantileBucket {
  lower: number;
  upper: number;
}

/**
 * The bucket the q-quantile (0–1) of a cumulative histogram falls in; undefined without
 * observations. Where buckets are a decade wide (admission policies: 0.5 µs, 1 ms, 10 ms,
 * 100 ms, 1 s), this is all the histogram knows: an interpolated value inside it is invented.
 */
export function quantileBucket(
  q: number,
  buckets: ReadonlyArray<readonly [number, number]>,
): QuantileBucket | undefined {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lower = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank && count > 0) return { lower, upper: bound };
    lower = bound;
  }
  return { lower, upper: Infinity };
}

const subCounts = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)]));

const subBuckets = (
  later: Array<[number, number]>,
  earlier: Array<[number, number]>,
): Array<[number, number]> =>
  later.map(([b, c]) => [b, c - (earlier.find((e) => e[0] === b)?.[1] ?? 0)]);

/** `later - earlier` for every counter of one hook (a window); a reset (restart) keeps `later`. */
export function webhookDelta(
  later: WebhookMetrics,
  earlier: WebhookMetrics | undefined,
): WebhookMetrics {
  if (!earlier || later.calls < earlier.calls || later.durationCount < earlier.durationCount) {
    return later;
  }
  return {
    ...later,
    calls: later.calls - earlier.calls,
    rejected: later.rejected - earlier.rejected,
    byCode: subCounts(later.byCode, earlier.byCode),
    rejections: subCounts(later.rejections, earlier.rejections),
    failOpen: later.failOpen - earlier.failOpen,
    matchConditionErrors: later.matchConditionErrors - earlier.matchConditionErrors,
    matchConditionExclusions: later.matchConditionExclusions - earlier.matchConditionExclusions,
    buckets: subBuckets(later.buckets, earlier.buckets),
    durationCount: later.durationCount - earlier.durationCount,
    durationSum: later.durationSum - earlier.durationSum,
  };
}

/** `later - earlier` for every counter of one policy binding; a reset keeps `later`. */
export function policyDelta(
  later: PolicyMetrics,
  earlier: PolicyMetrics | undefined,
): PolicyMetrics {
  if (!earlier || later.checks < earlier.checks || later.durationCount < earlier.durationCount) {
    return later;
  }
  return {
    ...later,
    checks: later.checks - earlier.checks,
    byAction: subCounts(later.byAction, earlier.byAction),
    errors: subCounts(later.errors, earlier.errors),
    evaluationErrors: later.evaluationErrors - earlier.evaluationErrors,
    buckets: subBuckets(later.buckets, earlier.buckets),
    durationCount: later.durationCount - earlier.durationCount,
    durationSum: later.durationSum - earlier.durationSum,
  };
}
