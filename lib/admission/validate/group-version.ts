/**
 * schema.ParseGroupVersion (apimachinery), which admissionregistration's validation.go also keeps
 * a local copy of: "" and "/" are the empty GroupVersion, one slash splits group and version,
 * more than one is an error.
 */
export function parseGroupVersion(
  gv: string,
): { group: string; version: string } | { error: string } {
  if (gv.length === 0 || gv === "/") return { group: "", version: "" };
  const n = gv.split("/").length - 1;
  if (n === 0) return { group: "", version: gv };
  if (n === 1) {
    const i = gv.indexOf("/");
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return { error: `unexpected GroupVersion string: ${gv}` };
}
