/**
 * Before breaking the glass: which writers of the object will put the change back. Read from the
 * object alone — its controller owner reference and the field managers (managedFields, through
 * provenance) of the fields break-glass changes. The policy engines' own recognition and their
 * emergency switches are added by the caller (lib/engines/edit-warning). Pure.
 */
import { configurationProvenance } from "@/lib/admission/provenance/provenance";
import { platformOf } from "@/lib/admission/provenance/platforms";
import type { ConfigurationObject } from "./plan";
import {
  isBindingBreakGlass,
  type BreakGlassField,
  type BreakGlassMode,
  type BreakGlassResource,
} from "./record";

export interface ControllerWarning {
  /** The manager or owner, as the object names it. */
  readonly who: string;
  /** One sentence: what it does and why it matters here. */
  readonly text: string;
  /** Its own emergency switch or opt-out, when known (with where that is documented). */
  readonly emergency?: string;
}

/**
 * Managers that are people at a terminal or this dashboard: they write once and do not come back
 * on their own. Any other manager of a field break-glass changes may be a controller.
 */
const INTERACTIVE = /^(kubectl(-.*)?|portcullis.*|node-fetch|curl|Mozilla.*|k9s|lens.*)$/;

const FIELDS_OF: Record<BreakGlassMode, readonly BreakGlassField[]> = {
  ignore: ["failurePolicy"],
  "exclude-namespaces": ["namespaceSelector"],
  grant: [],
  warn: ["validationActions"],
};

/** The warnings for breaking the glass on `hooks` of `obj` (a binding: its name) in `mode`. */
export function controllerWarnings(
  obj: ConfigurationObject,
  hooks: readonly string[],
  mode: BreakGlassMode,
  resource: BreakGlassResource = "validatingwebhookconfigurations",
): ControllerWarning[] {
  const binding = isBindingBreakGlass(resource);
  const out: ControllerWarning[] = [];
  const refs = obj.metadata?.["ownerReferences"];
  if (Array.isArray(refs))
    for (const r of refs as Array<{ kind?: string; name?: string; controller?: boolean }>)
      if (r?.controller)
        out.push({
          who: `${r.kind ?? "?"}/${r.name ?? "?"}`,
          text: `the ${binding ? "binding" : "configuration"} is controlled by ${r.kind ?? "?"} ${r.name ?? "?"}: its controller may write its own version back before the break-glass ends, and then the revert finds the fields changed and leaves them`,
        });
  const fields: readonly BreakGlassField[] =
    binding && mode === "exclude-namespaces" ? ["matchResources"] : FIELDS_OF[mode];
  if (fields.length === 0) return out;
  const prov = configurationProvenance(obj);
  const seen = new Set<string>();
  for (const s of prov.sections) {
    if (binding ? s.name !== "spec" : !hooks.includes(s.name)) continue;
    for (const t of s.terms) {
      if (!fields.some((f) => t.field === f || t.field.startsWith(`${f}.`))) continue;
      for (const o of [...t.owners, ...(t.unitOwners ?? [])]) {
        if (INTERACTIVE.test(o.manager) || seen.has(o.manager)) continue;
        seen.add(o.manager);
        const platform = platformOf(o.manager);
        out.push({
          who: o.manager,
          text: `${t.field} of ${binding ? "the binding" : `hook ${s.name}`} is managed by ${o.manager} (${o.operation}${o.time ? `, last ${o.time}` : ""})${platform ? `, ${platform.name}: it ${platform.does}` : ""}; a controller writing as ${o.manager} will set it back at its next reconcile`,
          ...(platform?.optOut ? { emergency: `${platform.optOut} (${platform.source})` } : {}),
        });
      }
    }
  }
  return out;
}
