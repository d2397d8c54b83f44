/** A label selector as one line of text (kubectl's syntax) and back, for the form view. Pure. */
import type { V1LabelSelector, V1LabelSelectorRequirement } from "@/lib/k8s/types";
import { selectorSummary } from "./summary";

/** The selector as `a=b, c in (x,y), !d, e`; "" for an empty selector. */
export function selectorText(sel: V1LabelSelector | undefined): string {
  const s = selectorSummary(sel);
  return s === "all" ? "" : s;
}

function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** Parses the line; returns an error message for a term it cannot read. */
export function parseSelectorText(text: string): { selector: V1LabelSelector } | { error: string } {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: V1LabelSelectorRequirement[] = [];
  for (const term of splitTop(text)) {
    let m: RegExpExecArray | null;
    if ((m = /^([^\s=!(),]+)\s+(in|notin)\s+\(([^)]*)\)$/i.exec(term))) {
      matchExpressions.push({
        key: m[1] ?? "",
        operator: (m[2] ?? "").toLowerCase() === "in" ? "In" : "NotIn",
        values: (m[3] ?? "")
          .split(",")
          .map((v) => v.trim())
          .filter((v) => v !== "")
          // `""` is the empty value (a label may be set to ""), as selectorText writes it.
          .map((v) => (v === '""' ? "" : v)),
      });
    } else if ((m = /^([^\s=!(),]+)\s*!=\s*([^\s=!(),]*)$/.exec(term))) {
      // kubectl's `a!=b`: NotIn, which also matches objects without the label.
      matchExpressions.push({ key: m[1] ?? "", operator: "NotIn", values: [m[2] ?? ""] });
    } else if ((m = /^([^\s=!(),]+)\s*==?\s*([^\s=!(),]*)$/.exec(term))) {
      const [key, value] = [m[1] ?? "", m[2] ?? ""];
      // A key named twice (`a=b, a=c`) asks for both, as kubectl's parser reads it (it matches
      // nothing when the values differ); matchLabels holds one value per key, so the second is an
      // In requirement instead of silently replacing the first.
      if (key in matchLabels) matchExpressions.push({ key, operator: "In", values: [value] });
      else matchLabels[key] = value;
    } else if ((m = /^!([^\s=!(),]+)$/.exec(term))) {
      matchExpressions.push({ key: m[1] ?? "", operator: "DoesNotExist" });
    } else if ((m = /^([^\s=!(),]+)$/.exec(term))) {
      matchExpressions.push({ key: m[1] ?? "", operator: "Exists" });
    } else {
      return { error: `cannot read "${term}"` };
    }
  }
  const selector: V1LabelSelector = {};
  if (Object.keys(matchLabels).length > 0) selector.matchLabels = matchLabels;
  if (matchExpressions.length > 0) selector.matchExpressions = matchExpressions;
  return { selector };
}
