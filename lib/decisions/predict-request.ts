/**
 * The predict page opened on the request a decision was made for: its operation, resource,
 * namespace, user and groups as admission saw them (the impersonated user's, when the request
 * impersonated one), and its object when the event holds it (Request level and above, as the
 * suggested policy logs admission configuration); at Metadata level only the object's name and
 * namespace are known, so selectors on its labels are predicted without them. Pure and light (the decision feed's first load): JSON text, no YAML.
 */
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import {
  DEFAULT_STATE,
  MAX_URL_OBJECT,
  stateToQuery,
  type PredictPageState,
} from "@/lib/predict/page-state";

export interface RequestPrediction {
  href: string;
  /** Whether the event held the object (else only its name and namespace are predicted with). */
  objectKnown: boolean;
}

/** The group every authenticated request carries; the predict page adds it itself. */
export const AUTHENTICATED = "system:authenticated";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The object of a CREATE or UPDATE as the event holds it, without its managedFields. A DELETE's
 * or CONNECT's requestObject is its options, not the object.
 */
export function storedObject(
  raw: string | undefined,
  req: AuditRequestFacts,
  parsed?: unknown,
): Record<string, unknown> | undefined {
  if (raw === undefined || (req.operation !== "CREATE" && req.operation !== "UPDATE")) return;
  let event: unknown = parsed;
  if (event === undefined)
    try {
      event = JSON.parse(raw);
    } catch {
      return undefined;
    }
  const o = isRecord(event) ? event.requestObject : undefined;
  if (!isRecord(o) || typeof o.kind !== "string" || o.kind.endsWith("Options")) return undefined;
  const meta = isRecord(o.metadata) ? o.metadata : {};
  const { managedFields: _dropped, ...metadata } = meta;
  return { ...o, metadata };
}

/** What is known of the object at Metadata level: its API version, name and namespace. */
export function stub(req: AuditRequestFacts): Record<string, unknown> {
  const metadata: Record<string, string> = {};
  if (req.name) metadata.name = req.name;
  if (req.namespace && req.resource !== "namespaces") metadata.namespace = req.namespace;
  return { apiVersion: req.group ? `${req.group}/${req.version}` : req.version, metadata };
}

/** The predict link for a decision's request; undefined when it names no admission request. */
export function requestPrediction(
  req: AuditRequestFacts,
  rawEvent: string | undefined,
): RequestPrediction | undefined {
  if (!req.operation || !req.resource || !req.version) return undefined;
  const stored = storedObject(rawEvent, req);
  const storedText = stored && JSON.stringify(stored, null, 2);
  const objectKnown = storedText !== undefined && storedText.length <= MAX_URL_OBJECT;
  const state: PredictPageState = {
    ...DEFAULT_STATE,
    object: objectKnown ? storedText : JSON.stringify(stub(req), null, 2),
    operation: req.operation,
    subresource: req.subresource,
    resource: `${req.group || "core"}/${req.version}/${req.resource}`,
    namespace: req.resource === "namespaces" ? "" : req.namespace,
    user: req.user,
    groups: req.groups.filter((g) => g !== AUTHENTICATED),
    dryRun: req.dryRun,
  };
  return { href: `/predict?${stateToQuery(state)}`, objectKnown };
}
