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
import type { Equivalent } from "@/lib/admission/equivalence";

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
  /** The request resource's equivalents (itself included) from discovery. */
  readonly equivalents: readonly Equivalent[];
  /** CEL variables for the request's own kind, built on first use. */
  celVariables(): CelVariables;
}

class RequestMatchContext implements MatchContext {
  readonly request: AdmissionRequest;
  readonly snapshot: CompiledSnapshot;
  readonly attrs: RuleAttributes;
  readonly nsSource: NamespaceLabelSource;
  readonly nsLabels: Labels | undefined | null;
  readonly objectLabels: Labels | undefined;
  readonly oldObjectLabels: Labels | undefined;
  readonly objectHasMeta: boolean;
  readonly oldObjectHasMeta: boolean;
  readonly equivalents: readonly Equivalent[];
  #vars: CelVariables | undefined;

  constructor(request: AdmissionRequest, snapshot: CompiledSnapshot) {
    this.request = request;
    this.snapshot = snapshot;
    const nsSource = namespaceLabelSource(request);
    this.nsSource = nsSource;
    if (nsSource.kind === "object") this.nsLabels = nsSource.labels;
    else if (nsSource.kind === "stored") {
      this.nsLabels =
        request.namespaceObject?.labels ?? snapshot.namespaces.get(nsSource.name) ?? null;
    } else this.nsLabels = undefined;
    this.attrs = {
      operation: request.operation,
      group: request.group,
      version: request.version,
      resource: request.resource,
      subresource: request.subresource,
      namespace: request.namespace ?? "",
      name: request.name ?? "",
    };
    this.objectLabels = objectLabels(request.object);
    this.oldObjectLabels = objectLabels(request.oldObject);
    this.objectHasMeta = hasObjectMeta(request.object);
    this.oldObjectHasMeta = hasObjectMeta(request.oldObject);
    this.equivalents = snapshot.equivalence.equivalentsFor(request, request.subresource);
  }

  celVariables(): CelVariables {
    this.#vars ??= new LazyCelVariables(this.request);
    return this.#vars;
  }
}

// Conversion of large objects is paid only by expressions that read them.
class LazyCelVariables implements CelVariables {
  readonly #r: AdmissionRequest;
  #object: unknown;
  #oldObject: unknown;
  #request: unknown;
  constructor(r: AdmissionRequest) {
    this.#r = r;
  }
  get object(): unknown {
    return (this.#object ??= toCelValue(this.#r.object ?? null));
  }
  get oldObject(): unknown {
    return (this.#oldObject ??= toCelValue(this.#r.oldObject ?? null));
  }
  get request(): unknown {
    const r = this.#r;
    return (this.#request ??= celRequest(r, r.kind, {
      group: r.group,
      version: r.version,
      resource: r.resource,
    }));
  }
}

/** Builds the context; cheap, everything costly is lazy. */
export function createMatchContext(
  request: AdmissionRequest,
  snapshot: CompiledSnapshot,
): MatchContext {
  return new RequestMatchContext(request, snapshot);
}
