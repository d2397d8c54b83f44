/**
 * Per-request facts computed once and shared by every hook's matching: rule attributes,
 * namespace labels (resolved as `GetNamespaceLabels` would), object labels and CEL variables.
 */
import {
  generatedNamespaceBase,
  hasObjectMeta,
  namespaceLabelSource,
  objectLabels,
  type AdmissionRequest,
  type NamespaceLabelSource,
  withDecodeDefaults,
} from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import type { RuleAttributes } from "@/lib/admission/model/rule-matcher";
import {
  celRequest,
  toCelValue,
  type CelVariables,
  type ConditionVerdict,
} from "@/lib/admission/matching/condition-evaluator";
import type { Equivalent } from "@/lib/admission/matching/equivalence";
import { ruleSignature } from "@/lib/admission/matching/hook-index";
import type { CompiledSnapshot, OwnCall, SkipMatch } from "@/lib/admission/matching/compiled";

/** What matching needs to know about one request. */
export interface MatchContext {
  readonly request: AdmissionRequest;
  readonly snapshot: CompiledSnapshot;
  readonly attrs: RuleAttributes;
  /** `ruleSignature(attrs)`: the key of the snapshot's rule-match memo. */
  readonly ruleSignature: string;
  readonly nsSource: NamespaceLabelSource;
  /** Labels for the namespaceSelector; `null` when the namespace does not exist. */
  readonly nsLabels: Labels | undefined | null;
  readonly objectLabels: Labels | undefined;
  readonly oldObjectLabels: Labels | undefined;
  readonly objectHasMeta: boolean;
  readonly oldObjectHasMeta: boolean;
  /** The request resource's equivalents (itself included) from discovery. */
  readonly equivalents: readonly Equivalent[];
  /**
   * For a Namespace CREATE named by generateName, the generated name's base: its validating
   * phase sees the label `kubernetes.io/metadata.name` with a value unknown beforehand.
   */
  readonly generatedNamespace: string | undefined;
  /** CEL variables for the request's own kind, built on first use. */
  celVariables(): CelVariables;
  /**
   * Per-request selector outcomes by slot: index `2 * slot` for the namespace, `2 * slot + 1`
   * for the object; 0 unknown, 1 match, 2 no match.
   */
  selectorMemo(): Int8Array;
  /** Per-request matchCondition verdicts by slot, for the request's own (unconverted) kind. */
  conditionMemo(): Array<ConditionVerdict | undefined>;
  /** Per-request selector skips by `2 * slot + side`, shared by hooks with equal selectors. */
  selectorSkipMemo(): Array<SkipMatch | undefined>;
  /** Per-request calls through the request's own GVR, by matched rule index (see match.ts). */
  ownCallMemo(): Array<OwnCall | undefined>;
}

class RequestMatchContext implements MatchContext {
  readonly request: AdmissionRequest;
  readonly snapshot: CompiledSnapshot;
  readonly attrs: RuleAttributes;
  readonly ruleSignature: string;
  readonly nsSource: NamespaceLabelSource;
  readonly nsLabels: Labels | undefined | null;
  readonly objectLabels: Labels | undefined;
  readonly oldObjectLabels: Labels | undefined;
  readonly objectHasMeta: boolean;
  readonly oldObjectHasMeta: boolean;
  readonly equivalents: readonly Equivalent[];
  readonly generatedNamespace: string | undefined;
  #vars: CelVariables | undefined;
  #selectors: Int8Array | undefined;
  #conditions: Array<ConditionVerdict | undefined> | undefined;
  #ownCalls: Array<OwnCall | undefined> | undefined;
  #skips: Array<SkipMatch | undefined> | undefined;

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
    this.ruleSignature = ruleSignature(this.attrs);
    this.objectLabels = objectLabels(request.object);
    this.oldObjectLabels = objectLabels(request.oldObject);
    this.objectHasMeta = hasObjectMeta(request.object);
    this.oldObjectHasMeta = hasObjectMeta(request.oldObject);
    this.equivalents = snapshot.equivalence.equivalentsFor(request, request.subresource);
    this.generatedNamespace = generatedNamespaceBase(request);
  }

  celVariables(): CelVariables {
    this.#vars ??= new LazyCelVariables(this.request);
    return this.#vars;
  }

  selectorMemo(): Int8Array {
    return (this.#selectors ??= new Int8Array(2 * this.snapshot.selectorSlots));
  }

  conditionMemo(): Array<ConditionVerdict | undefined> {
    return (this.#conditions ??= []);
  }

  selectorSkipMemo(): Array<SkipMatch | undefined> {
    return (this.#skips ??= []);
  }

  ownCallMemo(): Array<OwnCall | undefined> {
    return (this.#ownCalls ??= []);
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
  return new RequestMatchContext(withDecodeDefaults(request), snapshot);
}
