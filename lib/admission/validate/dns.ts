/**
 * String-format checks from k8s.io/apimachinery (util/validation, api/validate/content). Each
 * returns the list of messages Go returns, in Go's order. Go measures len() in bytes, so lengths
 * here are UTF-8 byte lengths.
 */
import type { FieldPath } from "./field-path";
import type { FieldError } from "./field-error";
import { invalid, required } from "./field-error";

const utf8 = new TextEncoder();

/** len(s) in Go: bytes of the UTF-8 encoding. */
export function byteLen(s: string): number {
  return utf8.encode(s).length;
}

/** util/validation.MaxLenError (the DNS name checks). */
function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** content.MaxLenError (label keys and values, which moved to api/validate/content). */
function contentMaxLenError(n: number): string {
  return `must be no more than ${n} bytes`;
}

/** RegexError: each example is followed by ", " and joined with " or " (so ",  or "). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*";
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

const dns1123SubdomainRe = new RegExp("^" + dns1123SubdomainFmt + "$");
const dns1035LabelRe = new RegExp("^" + dns1035LabelFmt + "$");

/** IsDNS1123Subdomain (content's, inside label keys, says "bytes": `tooLong`). */
export function isDNS1123Subdomain(v: string, tooLong = maxLenError): string[] {
  const errs: string[] = [];
  if (byteLen(v) > 253) errs.push(tooLong(253));
  if (!dns1123SubdomainRe.test(v))
    errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"));
  return errs;
}

const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp("^" + dns1123LabelFmt + "$");

/** IsDNS1123Label (namespace names: ValidateNamespaceName). */
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLen(v) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(v)) {
    // A valid subdomain that is no label (the length is checked above) has dots.
    if (dns1123SubdomainRe.test(v)) errs.push("must not contain dots");
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"));
  }
  return errs;
}

/** IsDNS1035Label. */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLen(v) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(v))
    errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"));
  return errs;
}

/** genericvalidation.NameIsDNSSubdomain: with prefix=true a trailing '-' is masked (generateName). */
export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  // maskTrailingDash really drops two characters before appending "a".
  const n = prefix && name.length > 1 && name.endsWith("-") ? name.slice(0, -2) + "a" : name;
  return isDNS1123Subdomain(n);
}

const labelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyRe = new RegExp("^" + labelKeyFmt + "$");

/** content.IsLabelKey (= IsQualifiedName). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else
      for (const m of isDNS1123Subdomain(prefix, contentMaxLenError)) errs.push("prefix part " + m);
  } else {
    return [
      "a valid label key " +
        regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (byteLen(name) > 63) errs.push("name part " + contentMaxLenError(63));
  if (!labelKeyRe.test(name))
    errs.push(
      "name part " + regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"),
    );
  return errs;
}

const labelValueFmt = "(" + labelKeyFmt + ")?";
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp("^" + labelValueFmt + "$");

/** content.IsLabelValue (= IsValidLabelValue). */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLen(v) > 63) errs.push(contentMaxLenError(63));
  if (!labelValueRe.test(v))
    errs.push(regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"));
  return errs;
}

/** content.IsPathSegmentName. */
export function isPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes("/")) errs.push("may not contain '/'");
  if (name.includes("%")) errs.push("may not contain '%'");
  return errs;
}

/** IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ["must be between 1 and 65535, inclusive"];
}

/** utilvalidation.IsFullyQualifiedName: webhook and initializer names. */
export function isFullyQualifiedName(p: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [required(p)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(p, name, errs.join(","))];
  if (name.split(".").length < 3)
    return [invalid(p, name, "should be a domain with at least three segments separated by dots")];
  return [];
}

/** apivalidation.ValidateQualifiedName. */
export function validateQualifiedName(value: string, p: FieldPath): FieldError[] {
  return isQualifiedName(value).map((m) => invalid(p, value, m));
}
