import type { CelDecl, CelReturn } from "./cel";
import { checkCel } from "./cel";
import type { FieldError } from "./field-error";
import { duplicate, internalError, invalid, required, tooMany } from "./field-error";
import type { FieldPath } from "./field-path";
import { validateQualifiedName } from "./dns";
import type { JsonObject } from "./json";
import { str } from "./json";

/** Go's strings.TrimSpace (Unicode white space). */
export function trimSpace(s: string): string {
  // A loop, not /[\s]+$/: that pattern retries every position of a long inner run of spaces.
  const space = (c: string) => /\s/.test(c) || c === "\u0085";
  let start = 0;
  let end = s.length;
  while (start < end && space(s.charAt(start))) start++;
  while (end > start && space(s.charAt(end - 1))) end--;
  return s.slice(start, end);
}

/**
 * convertCELErrorToValidationError for an Invalid compile result. `reported` is the string Go
 * puts in the bad value: some callers pass the trimmed expression, some the raw one.
 */
export function celErrors(
  expr: string,
  reported: string,
  decl: CelDecl,
  ret: CelReturn,
  p: FieldPath,
): FieldError[] {
  const v = checkCel(expr, decl, ret);
  if (v.kind === "internal") return [internalError(p, v.detail)];
  return v.kind === "error" ? [invalid(p, reported, v.detail)] : [];
}

/** validateMatchCondition. `allowParams` is true for policies with a paramKind. */
function validateMatchCondition(mc: JsonObject, allowParams: boolean, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const trimmed = trimSpace(str(mc, "expression"));
  if (trimmed.length === 0) errs.push(required(p.child("expression")));
  else
    errs.push(
      ...celErrors(
        trimmed,
        trimmed,
        { params: allowParams, authorizer: true },
        "bool",
        p.child("expression"),
      ),
    );
  const name = str(mc, "name");
  if (name.length === 0) errs.push(required(p.child("name")));
  else errs.push(...validateQualifiedName(name, p.child("name")));
  return errs;
}

/** validateMatchConditions: at most 64, unique non-empty names. */
export function validateMatchConditions(
  list: JsonObject[],
  allowParams: boolean,
  p: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  if (list.length > 64) errs.push(tooMany(p, list.length, 64));
  list.forEach((mc, i) => {
    errs.push(...validateMatchCondition(mc, allowParams, p.at(i)));
    const name = str(mc, "name");
    if (name.length > 0) {
      if (names.has(name)) errs.push(duplicate(p.at(i).child("name"), name));
      else names.add(name);
    }
  });
  return errs;
}
