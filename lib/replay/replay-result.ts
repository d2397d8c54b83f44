/**
 * What a replay finds (replay.ts) and the sentences the editor shows for it: light, with no
 * predictor in it, so the pages that only show a replay's result do not load the predictor.
 */
import type { AdmissionOperation } from "@/lib/k8s/types";
import type { LabelsOrigin } from "./case";

/** A hook or policy binding: its `<source>:<key>` (hookKey) and a label. */
export interface CaseHook {
  key: string;
  /** e.g. `ValidatingWebhookConfiguration team-a / pods.example.com`. */
  label: string;
}

export type ChangeKind =
  | "newly-skipped"
  | "newly-called"
  | "newly-undecided"
  | "no-longer-undecided"
  | "newly-denied"
  | "no-longer-denied"
  | "newly-warned"
  | "no-longer-warned";

/** One hook (or the request's verdict) whose outcome the edit changes, and why. */
export interface HookChange {
  kind: ChangeKind;
  /** The hook or binding; for a verdict change, the hook the refusal is at. */
  hook: CaseHook;
  /**
   * The predictor's reason, after the edit (before it, for a no-longer change); for a refusal
   * or a warning, the apiserver's status and message (a validating policy's CEL message).
   */
  reason: string;
}

/** A replayed request whose outcome changes. */
export interface ChangedRequest {
  id: string;
  source: "case" | "feed";
  title: string;
  time: number;
  operation: AdmissionOperation;
  resource: string;
  namespace: string;
  name: string;
  labelsFrom: LabelsOrigin;
  objectKnown: boolean;
  changes: HookChange[];
}

/** Changed requests counted by change, hook, operation, resource and namespace. */
export interface ChangeGroup {
  kind: ChangeKind;
  hook: CaseHook;
  operation: AdmissionOperation;
  resource: string;
  namespace: string;
  count: number;
  first: number;
  last: number;
}

export interface ReplayResult {
  /** Requests replayed (saved cases and feed requests). */
  replayed: { cases: number; feed: number };
  /** Requests whose outcome changes (all of them counted; `changed` holds the first `limit`). */
  changedCount: number;
  changed: ChangedRequest[];
  groups: ChangeGroup[];
  /** Requests replayed with their namespace's current labels (labels at decision time unknown). */
  currentLabels: number;
  /** Requests whose object the audit event did not hold (Metadata level). */
  withoutObject: number;
  /** Time spent compiling and predicting, ms. */
  millis: number;
}

const VERB: Record<ChangeKind, string> = {
  "newly-skipped": "stops calling",
  "newly-called": "starts calling",
  "newly-undecided": "leaves undecided",
  "no-longer-undecided": "decides",
  "newly-denied": "makes admission refuse",
  "no-longer-denied": "stops admission refusing",
  "newly-warned": "makes admission warn on",
  "no-longer-warned": "stops admission warning on",
};

const NOUN: Record<AdmissionOperation, [string, string]> = {
  CREATE: ["creation", "creations"],
  UPDATE: ["update", "updates"],
  DELETE: ["deletion", "deletions"],
  CONNECT: ["connection", "connections"],
};

/** `pods` → `pod`, `ingresses` → `ingress`, `policies` → `policy` (for a sentence only). */
function singular(resource: string): string {
  const [r = "", sub] = resource.split("/");
  const one = r.endsWith("ies")
    ? `${r.slice(0, -3)}y`
    : /(ss|x|ch|sh)es$/.test(r)
      ? r.slice(0, -2)
      : r.endsWith("s")
        ? r.slice(0, -1)
        : r;
  return sub ? `${one} ${sub}` : one;
}

/**
 * A group as a sentence: "This edit stops calling team-a / pods.example.com for 214 pod
 * creations in team-a."
 */
export function groupSentence(g: ChangeGroup): string {
  const [one, many] = NOUN[g.operation];
  const what = `${g.count.toLocaleString("en-US")} ${singular(g.resource)} ${g.count === 1 ? one : many}`;
  const where = g.namespace ? ` in ${g.namespace}` : "";
  const hook = g.hook.label.replace(/^\S+ /, "");
  const verb = VERB[g.kind];
  return g.kind === "newly-denied" ||
    g.kind === "no-longer-denied" ||
    g.kind === "newly-warned" ||
    g.kind === "no-longer-warned"
    ? `This edit ${verb} ${what}${where} (at ${hook}).`
    : `This edit ${verb} ${hook} for ${what}${where}.`;
}
