/**
 * Initializers (admissionregistration.k8s.io/v1alpha1 InitializerConfiguration, 1.7–1.13), pure:
 * the merged order every apiserver applies, the `metadata.initializers.pending` list a new object
 * gets from the `Initializers` admission plugin, and reordering. Reference §6.1 and the dynamic
 * admission control design ("we sort the initializers from different InitializerConfigurations by
 * the name of the InitializerConfigurations; the order of the initializers from the same
 * InitializerConfiguration is preserved").
 */
import { byName } from "../model/by-name";
import { compileRule, ruleMatches } from "../model/rule-matcher";
import type { InitializerConfiguration } from "../model/snapshot";

/** A v1alpha1 Rule: no operations (initializers act on CREATE only), no subresources. */
export interface InitializerRule {
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
}

/** One initializer at its place in the merged order. */
export interface InitializerEntry {
  /** 0-based place in the merged order (the order of `pending`). */
  readonly order: number;
  readonly configuration: string;
  /** 0-based position inside its configuration. */
  readonly position: number;
  readonly name: string;
  readonly rules: readonly InitializerRule[];
}

/** Every initializer of every configuration in the order the apiserver merges them. */
export function initializerOrder(configs: readonly InitializerConfiguration[]): InitializerEntry[] {
  const out: InitializerEntry[] = [];
  for (const cfg of byName(configs)) {
    const configuration = cfg.metadata?.name ?? "";
    (cfg.initializers ?? []).forEach((init, position) => {
      out.push({
        order: out.length,
        configuration,
        position,
        name: typeof init.name === "string" ? init.name : "",
        rules: init.rules ?? [],
      });
    });
  }
  return out;
}

/** What is created: its group/version/resource (and subresource, for the "never" case). */
export interface NewObject {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly operation?: string;
  /**
   * `metadata.initializers` as the creator sent it: undefined (not set: the plugin fills it),
   * or the creator's own `pending` names (needs the `initialize` verb; `[]` bypasses).
   */
  readonly creatorPending?: readonly string[];
  /** A mirror pod (kubernetes.io/config.mirror annotation): exempt. */
  readonly mirrorPod?: boolean;
}

/** The pending list a new object gets, and why. */
export interface PendingResult {
  readonly pending: readonly string[];
  /** Entries that put a name on the list, in order. */
  readonly from: readonly InitializerEntry[];
  readonly reason:
    | "matched"
    | "no-initializer-matches"
    | "not-a-create"
    | "subresource"
    | "creator-set"
    | "creator-bypass"
    | "mirror-pod";
}

/**
 * `metadata.initializers.pending` of a new object, as the 1.7–1.13 `Initializers` admission
 * plugin sets it: only on CREATE of a resource (never a subresource); a creator who sets
 * `metadata.initializers` keeps it (an empty list bypasses initialization; both need the
 * `initialize` verb); mirror pods are exempt; otherwise every initializer with a rule matching
 * the group, version and resource, in the merged order. Duplicate names are kept: the plugin did
 * not remove them, and the second one waits for the first to remove itself.
 */
export function pendingFor(
  configs: readonly InitializerConfiguration[],
  o: NewObject,
): PendingResult {
  if ((o.operation ?? "CREATE") !== "CREATE")
    return { pending: [], from: [], reason: "not-a-create" };
  if (o.subresource) return { pending: [], from: [], reason: "subresource" };
  if (o.creatorPending !== undefined)
    return o.creatorPending.length === 0
      ? { pending: [], from: [], reason: "creator-bypass" }
      : { pending: o.creatorPending, from: [], reason: "creator-set" };
  if (o.mirrorPod && o.group === "" && o.resource === "pods")
    return { pending: [], from: [], reason: "mirror-pod" };
  const attrs = {
    operation: "CREATE",
    group: o.group,
    version: o.version,
    resource: o.resource,
    subresource: "",
    namespace: "",
    name: "",
  };
  const from = initializerOrder(configs).filter((e) =>
    e.rules.some((r, i) => ruleMatches(compileRule({ ...r, operations: ["CREATE"] }, i), attrs)),
  );
  return {
    pending: from.map((e) => e.name),
    from,
    reason: from.length > 0 ? "matched" : "no-initializer-matches",
  };
}

/** The list with the item at `from` moved to `to` (both 0-based). */
export function moveItem<T>(xs: readonly T[], from: number, to: number): T[] {
  const out = xs.slice();
  if (from < 0 || from >= out.length || to < 0 || to >= out.length) return out;
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x as T);
  return out;
}
