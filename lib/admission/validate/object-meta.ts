import type { FieldError } from "./field-error";
import { invalid, invalidJson, required, tooLong } from "./field-error";
import { FieldPath } from "./field-path";
import { byteLen, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from "./dns";
import type { JsonObject } from "./json";
import { obj, str, strList } from "./json";

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

/**
 * genericvalidation.ValidateObjectMeta for a cluster-scoped object whose names must be DNS
 * subdomains. metadata.namespace is not checked: BeforeCreate clears it on cluster-scoped kinds.
 */
export function validateObjectMeta(meta: JsonObject | undefined): FieldError[] {
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
