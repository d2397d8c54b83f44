/**
 * Field managers of platforms and controllers known to change admission configurations after
 * their owner wrote them, with what they change and how to opt out where it is documented.
 */

/** A selector requirement a platform adds. */
interface KnownRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values: readonly string[];
}

export interface Platform {
  /** Field manager names it writes as (exact). */
  readonly managers: readonly string[];
  readonly name: string;
  /** What it changes, in a sentence. */
  readonly does: string;
  /** How to keep it away from one configuration, when documented. */
  readonly optOut?: string;
  /** Requirements it adds to every namespaceSelector (its signature in an atomic selector). */
  readonly namespaceSelectorTerms?: readonly KnownRequirement[];
  /** Where this is documented. */
  readonly source: string;
}

const AKS_ADMISSIONS_ENFORCER: Platform = {
  managers: ["admissionsenforcer"],
  name: "AKS admissions enforcer",
  does: "adds `control-plane NotIn [true]` and `kubernetes.azure.com/managedby NotIn [aks]` to every namespaceSelector, keeping webhooks away from AKS's own namespaces",
  optOut:
    'label or annotate the configuration with `admissions.enforcer/disabled: "true"` (the terms it already added stay until removed by hand)',
  namespaceSelectorTerms: [
    { key: "control-plane", operator: "NotIn", values: ["true"] },
    { key: "kubernetes.azure.com/managedby", operator: "NotIn", values: ["aks"] },
  ],
  source:
    "AKS FAQ, “Can admission controller webhooks impact kube-system and internal AKS namespaces?”; Azure/AKS issue 4002",
};

const CERT_MANAGER_CAINJECTOR: Platform = {
  managers: ["cert-manager-cainjector", "cainjector"],
  name: "cert-manager CA injector",
  does: "writes clientConfig.caBundle from a Certificate, a Secret or the apiserver's CA",
  optOut:
    "remove the `cert-manager.io/inject-ca-from`, `cert-manager.io/inject-ca-from-secret` or `cert-manager.io/inject-apiserver-ca` annotation",
  source: "cert-manager's cainjector reference",
};

const KNOWN_PLATFORMS: readonly Platform[] = [AKS_ADMISSIONS_ENFORCER, CERT_MANAGER_CAINJECTOR];

/** The platform writing as `manager`, if known. */
export function platformOf(manager: string): Platform | undefined {
  return KNOWN_PLATFORMS.find((p) => p.managers.includes(manager));
}

/** Is `r` one of the requirements a platform adds to namespaceSelectors? */
export function platformOfRequirement(r: {
  key?: unknown;
  operator?: unknown;
  values?: unknown;
}): Platform | undefined {
  const values = Array.isArray(r.values) ? (r.values as unknown[]) : [];
  return KNOWN_PLATFORMS.find((p) =>
    (p.namespaceSelectorTerms ?? []).some(
      (t) =>
        t.key === r.key &&
        t.operator === r.operator &&
        t.values.length === values.length &&
        t.values.every((v, i) => v === values[i]),
    ),
  );
}
