/**
 * Warnings (HTTP Warning headers) and the reserved static-manifest suffix
 * (pkg/apis/admissionregistration/validation/static_suffix.go, warnings.go; v1.37.2 with
 * ManifestBasedAdmissionControlConfig and ExcludeAdmissionWebhookVirtualResources on by default).
 */
import type { FieldError } from "./field-error";
import { invalid } from "./field-error";
import { FieldPath } from "./field-path";
import type { JsonObject } from "./json";
import { objList, strList } from "./json";

const staticSuffix = ".static.k8s.io";

/** ValidateStaticSuffix: on create the name may not end with `.static.k8s.io`. */
export function validateStaticSuffix(name: string): FieldError[] {
  if (!name.endsWith(staticSuffix)) return [];
  return [
    invalid(
      FieldPath.root("metadata").child("name"),
      name,
      `names ending with "${staticSuffix}" are reserved for static manifest-based configurations and cannot be managed via the API`,
    ),
  ];
}

/** WarningsForStaticSuffix: on update the reserved suffix only warns. */
export function staticSuffixWarnings(name: string): string[] {
  if (!name.endsWith(staticSuffix)) return [];
  return [
    `metadata.name: names ending with "${staticSuffix}" are reserved for static manifest-based configurations and cannot be managed via the API`,
  ];
}

/** exclusion.Excluded() in 1.37.2: resources webhooks are never called for. */
const excluded: [string, string][] = [
  ["authentication.k8s.io", "selfsubjectreviews"],
  ["authentication.k8s.io", "tokenreviews"],
  ["authorization.k8s.io", "localsubjectaccessreviews"],
  ["authorization.k8s.io", "selfsubjectaccessreviews"],
  ["authorization.k8s.io", "selfsubjectrulesreviews"],
  ["authorization.k8s.io", "subjectaccessreviews"],
];

/** WarningsFor{Validating,Mutating}WebhookRules: rules naming an excluded resource explicitly. */
export function excludedRuleWarnings(o: JsonObject): string[] {
  const out: string[] = [];
  objList(o, "webhooks").forEach((h, i) => {
    objList(h, "rules").forEach((r, j) => {
      const groups = strList(r, "apiGroups");
      const resources = strList(r, "resources");
      if (groups.includes("*") || resources.includes("*")) return;
      const seen = new Set<string>();
      for (const g of groups)
        for (const res of resources) {
          if (!excluded.some(([eg, er]) => eg === g && er === res)) continue;
          const gr = g ? `${res}.${g}` : res;
          if (seen.has(gr)) continue;
          seen.add(gr);
          out.push(
            `webhooks[${i}].rules[${j}]: ${gr} is excluded from admission webhooks; this rule will have no effect`,
          );
        }
    });
  });
  return out;
}
