/**
 * Per-request facts computed once and shared by every hook's matching: rule attributes,
 * namespace labels (resolved as `GetNamespaceLabels` would), object labels and CEL variables.
 */
import {
  hasObjectMeta,
  namespaceLabelSource,
  objectLabels,
  type AdmissionRequest,
  type NamespaceLabelSource,
} from "@/lib/admission/request";
import type { Labels } from "@/lib/admission/selectors";
import type { RuleAttributes } from "@/lib/admission/rules";
import { celRequest, toCelValue, type CelVariables } from "@/lib/admission/match-conditions";
import type { CompiledSnapshot } from "@/lib/admission/compile";

/** What matching needs to know about one request. */
export interface MatchContext {
  readonly request: AdmissionRequest;
  readonly snapshot: CompiledSnapshot;
  readonly attrs: RuleAttributes;
  readonly nsSource: NamespaceLabelSource;
  /** Labels for the namespaceSelector; `null` when the namespace does not exist. */
  readonly nsLabels: Labels | undefined | null;
  readonly objectLabels: Labels | undefined;
  readonly oldObjectLabels: Labels | undefined;
  readonly objectHasMeta: boolean;
  readonly oldObjectHasMeta: boolean;
  /** CEL variables for the request's own kind, built on first use. */
  celVariables(): CelVariables;
}

/** Builds the context; cheap, everything costly is lazy. */
export function createMatchContext(
  request: AdmissionRequest,
  snapshot: CompiledSnapshot,
): MatchContext {
  const nsSource = namespaceLabelSource(request);
  let nsLabels: Labels | undefined | null;
  if (nsSource.kind === "object") nsLabels = nsSource.labels;
  else if (nsSource.kind === "stored") {
    nsLabels = request.namespaceObject?.labels ?? snapshot.namespaces.get(nsSource.name) ?? null;
  }
  let vars: CelVariables | undefined;
  return {
    request,
    snapshot,
    attrs: {
      operation: request.operation,
      group: request.group,
      version: request.version,
      resource: request.resource,
      subresource: request.subresource,
      namespace: request.namespace ?? "",
      name: request.name ?? "",
    },
    nsSource,
    nsLabels,
    objectLabels: objectLabels(request.object),
    oldObjectLabels: objectLabels(request.oldObject),
    objectHasMeta: hasObjectMeta(request.object),
    oldObjectHasMeta: hasObjectMeta(request.oldObject),
    celVariables() {
      vars ??= {
        object: toCelValue(request.object ?? null),
        oldObject: toCelValue(request.oldObject ?? null),
        request: celRequest(request, request.kind, {
          group: request.group,
          version: request.version,
          resource: request.resource,
        }),
      };
      return vars;
    },
  };
}
