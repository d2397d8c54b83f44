import type { FieldError } from "./field-error";
import { forbidden, invalid, invalidJson, required } from "./field-error";
import type { FieldPath } from "./field-path";
import { isQualifiedName, isValidLabelValue } from "./dns";
import type { JsonObject } from "./json";
import { obj, objList, str, strList } from "./json";
import { validateLabels } from "./object-meta";

/** metav1validation.LabelSelectorValidationOptions. */
export interface LabelSelectorOptions {
  allowInvalidLabelValueInSelector?: boolean;
}

/** metav1validation.ValidateLabelSelectorRequirement. */
function validateRequirement(
  sr: JsonObject,
  opts: LabelSelectorOptions,
  p: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const op = str(sr, "operator");
  const values = strList(sr, "values");
  switch (op) {
    case "In":
    case "NotIn":
      if (values.length === 0)
        errs.push(
          required(p.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"),
        );
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0)
        errs.push(
          forbidden(
            p.child("values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      break;
    default:
      // operator is a named string type (LabelSelectorOperator): json.Marshal prints it.
      errs.push(invalidJson(p.child("operator"), op, "not a valid selector operator"));
  }
  const key = str(sr, "key");
  for (const m of isQualifiedName(key)) errs.push(invalid(p.child("key"), key, m));
  if (!opts.allowInvalidLabelValueInSelector) {
    values.forEach((v, i) => {
      for (const m of isValidLabelValue(v)) errs.push(invalid(p.child("values").at(i), v, m));
    });
  }
  return errs;
}

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(
  sel: JsonObject,
  opts: LabelSelectorOptions,
  p: FieldPath,
): FieldError[] {
  const errs = validateLabels(obj(sel, "matchLabels"), p.child("matchLabels"));
  objList(sel, "matchExpressions").forEach((e, i) => {
    errs.push(...validateRequirement(e, opts, p.child("matchExpressions").at(i)));
  });
  return errs;
}
