import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { FieldError } from "./field-error";
import { invalid, invalidJson, invalidMarshalled, required, tooLong } from "./field-error";
import { FieldPath } from "./field-path";
import { byteLen, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from "./dns";
import { goJsonStruct } from "./go-format";
import { parseGroupVersion } from "./group-version";
import type { JsonObject } from "./json";
import { obj, objList, str, strList } from "./json";

const totalAnnotationSizeLimitB = 256 * 1024;

/**
 * The name the apiserver would give the object before validating it: BeforeCreate generates
 * `generateName` + 5 random characters (the prefix cut to 58 bytes) when the name is empty.
 */
export function effectiveName(meta: JsonObject | undefined): string {
  const name = str(meta, "name");
  const gen = str(meta, "generateName");
  if (name || !gen) return name;
  return (gen.length > 58 ? gen.slice(0, 58) : gen) + "xxxxx";
}

/** metav1validation.ValidateLabels: keys and values, reported at the map's path. */
export function validateLabels(labels: JsonObject | undefined, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  // Go ranges over a map: the order is random there; sorted here so output is stable.
  for (const k of Object.keys(labels).sort()) {
    for (const m of isQualifiedName(k)) errs.push(invalid(p, k, m));
    const v = labels[k];
    const value = typeof v === "string" ? v : "";
    for (const m of isValidLabelValue(value)) errs.push(invalid(p, value, m));
  }
  return errs;
}

/** BannedOwners: the kinds that may not own an object, as `schema.GroupVersionKind.String()`. */
const bannedOwners = new Set(["/v1, Kind=Event"]);

/** An OwnerReference as json.Marshal prints it: declaration order, nil pointers left out. */
function ownerReferenceJson(ref: JsonObject): string {
  const ptr = (k: string) => {
    const v = ref[k];
    return typeof v === "boolean" ? v : undefined;
  };
  return goJsonStruct([
    ["apiVersion", str(ref, "apiVersion")],
    ["kind", str(ref, "kind")],
    ["name", str(ref, "name")],
    ["uid", str(ref, "uid")],
    ["controller", ptr("controller")],
    ["blockOwnerDeletion", ptr("blockOwnerDeletion")],
  ]);
}

/**
 * validateOwnerReference (apimachinery pkg/api/validation/objectmeta.go) as `minor` words it
 * (MinorBehaviour.ownerReferenceErrors): v0.37 names each reference's own path and says an empty
 * field is required; v0.35 and v0.36 report every reference at the list's path, an empty field
 * as an invalid "", and an apiVersion without a version as `version must not be empty`.
 */
function validateOwnerReference(ref: JsonObject, p: FieldPath, indexed: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(ref, "apiVersion");
  const parsed = parseGroupVersion(apiVersion);
  const gv = "error" in parsed ? { group: "", version: "" } : parsed;
  if (indexed) {
    if (apiVersion.length === 0) errs.push(required(p.child("apiVersion"), "must not be empty"));
    else if ("error" in parsed || gv.version.length === 0)
      errs.push(
        invalid(p.child("apiVersion"), apiVersion, "must be <group>/<version> or <version>"),
      );
    for (const f of ["kind", "name", "uid"])
      if (str(ref, f).length === 0) errs.push(required(p.child(f), "must not be empty"));
  } else {
    // schema.FromAPIVersionAndKind: an apiVersion that does not parse has no version either.
    if (gv.version.length === 0)
      errs.push(invalid(p.child("apiVersion"), apiVersion, "version must not be empty"));
    for (const f of ["kind", "name", "uid"])
      if (str(ref, f).length === 0) errs.push(invalid(p.child(f), "", "must not be empty"));
  }
  const gvk = `${gv.group}/${gv.version}, Kind=${str(ref, "kind")}`;
  if (bannedOwners.has(gvk))
    errs.push(
      invalidMarshalled(p, ownerReferenceJson(ref), `${gvk} is disallowed from being an owner`),
    );
  return errs;
}

/**
 * ValidateOwnerReferences. The required-value errors are marked covered by declarative validation
 * upstream (v0.37), but ObjectMeta's declarative rules are alpha in 1.37 and never enforced: the
 * handwritten errors are what the apiserver reports, so they are not marked here.
 */
export function validateOwnerReferences(
  refs: JsonObject[],
  p: FieldPath,
  minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR,
): FieldError[] {
  const indexed = behaviourOf(minor).ownerReferenceErrors === "indexed";
  const errs: FieldError[] = [];
  let firstController = "";
  refs.forEach((ref, i) => {
    errs.push(...validateOwnerReference(ref, indexed ? p.at(i) : p, indexed));
    if (ref.controller !== true) return;
    const current = `${str(ref, "kind")}/${str(ref, "name")}`;
    if (firstController === "") firstController = current;
    else
      errs.push(
        invalidMarshalled(
          p,
          "[" + refs.map(ownerReferenceJson).join(",") + "]",
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
        ),
      );
  });
  return errs;
}

/**
 * genericvalidation.ValidateObjectMeta for a cluster-scoped object whose names must be DNS
 * subdomains, as `minor`'s apiserver words it. metadata.namespace is not checked: BeforeCreate
 * clears it on cluster-scoped kinds.
 */
export function validateObjectMeta(
  meta: JsonObject | undefined,
  minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR,
): FieldError[] {
  const p = FieldPath.root("metadata");
  const errs: FieldError[] = [];
  const gen = str(meta, "generateName");
  if (gen)
    for (const m of nameIsDNSSubdomain(gen, true))
      errs.push(invalid(p.child("generateName"), gen, m));
  const name = effectiveName(meta);
  if (!name) errs.push(required(p.child("name"), "name or generateName is required"));
  else
    for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(p.child("name"), name, m));
  const labels = obj(meta, "labels");
  errs.push(...validateLabels(labels, p.child("labels")));
  const ann = obj(meta, "annotations");
  if (ann) {
    let size = 0;
    for (const k of Object.keys(ann).sort()) {
      for (const m of isQualifiedName(k.toLowerCase()))
        errs.push(invalid(p.child("annotations"), k, m));
      const v = ann[k];
      size += byteLen(k) + (typeof v === "string" ? byteLen(v) : 0);
    }
    if (size > totalAnnotationSizeLimitB)
      errs.push(tooLong(p.child("annotations"), totalAnnotationSizeLimitB));
  }
  errs.push(
    ...validateOwnerReferences(objList(meta, "ownerReferences"), p.child("ownerReferences"), minor),
  );
  const fins = strList(meta, "finalizers");
  for (const f of fins)
    for (const m of isQualifiedName(f)) errs.push(invalid(p.child("finalizers"), f, m));
  if (fins.includes("orphan") && fins.includes("foregroundDeletion"))
    errs.push(
      invalidJson(
        p.child("finalizers"),
        fins,
        "finalizer orphan and foregroundDeletion cannot be both set",
      ),
    );
  return errs;
}
