/**
 * Turns the apiserver's OpenAPI v3 document for a group/version into a JSON Schema for one kind,
 * as monaco-yaml wants it: the kind's schema at the root, every component under `definitions`,
 * `$ref`s rewritten to point there. Pure.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface OpenApiV3Doc {
  components?: { schemas?: Record<string, Json> };
}

export type JsonSchema = { [k: string]: Json };

function rewrite(v: Json): Json {
  if (Array.isArray(v)) return v.map(rewrite);
  if (v && typeof v === "object") {
    const out: { [k: string]: Json } = {};
    for (const [k, val] of Object.entries(v)) {
      if (k === "$ref" && typeof val === "string")
        out[k] = val.replace("#/components/schemas/", "#/definitions/");
      else out[k] = rewrite(val);
    }
    // OpenAPI wraps refs with defaults in allOf; JSON Schema tools handle allOf fine.
    return out;
  }
  return v;
}

/** The schema name of `group/version, kind` in the document, if present. */
function schemaNameFor(
  doc: OpenApiV3Doc,
  group: string,
  version: string,
  kind: string,
): string | undefined {
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
    const gvks = (s as { "x-kubernetes-group-version-kind"?: Json })[
      "x-kubernetes-group-version-kind"
    ];
    if (!Array.isArray(gvks)) continue;
    for (const g of gvks) {
      if (
        g &&
        typeof g === "object" &&
        !Array.isArray(g) &&
        g.group === group &&
        g.version === version &&
        g.kind === kind
      )
        return name;
    }
  }
  return undefined;
}

/** A JSON Schema for the kind, or undefined when the document does not describe it. */
export function kindJsonSchema(
  doc: OpenApiV3Doc,
  group: string,
  version: string,
  kind: string,
): JsonSchema | undefined {
  const name = schemaNameFor(doc, group, version, kind);
  if (!name) return undefined;
  const definitions: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(doc.components?.schemas ?? {})) definitions[k] = rewrite(v);
  const root = definitions[name];
  if (!root || typeof root !== "object" || Array.isArray(root)) return undefined;
  const props = (root.properties ?? {}) as { [k: string]: Json };
  return {
    ...root,
    properties: {
      ...props,
      apiVersion: {
        type: "string",
        enum: [`${group}/${version}`],
        description: "APIVersion of this object",
      },
      kind: { type: "string", enum: [kind], description: "Kind of this object" },
    },
    definitions,
  };
}
