/**
 * Random admissionregistration objects for the randomized validation oracle: each is a valid
 * object with several of the corpus's one-field variants applied at once — to several webhooks of
 * a configuration, or to one policy's spec, or merged into one binding's spec — so the validator
 * meets combinations of faults (and of valid oddities) that no corpus case has, and must still
 * name exactly the fields the apiserver names. Updates: a random object the validator accepts (the
 * stored one) and that object with more variants applied (the update).
 */
import type { JsonObject } from "../../lib/admission/validate/json";
import { Rand } from "./random-requests";
import { ourVerdict } from "./validation-judge";
import {
  baseHook,
  baseVapSpec,
  mapBindingSpecs,
  mapVariants,
  okMapSpec,
  okVapBinding,
  policyObject,
  topVariants,
  vapBindingSpecs,
  vapVariants,
  webhookConfig,
  webhookVariants,
  type CorpusCase,
} from "./validation-corpus";

const G = "admissionregistration.k8s.io";
type Patch = (o: JsonObject) => void;

/**
 * Applies the patches in turn to a copy of `o`, each to a fresh copy of the last one's result (so
 * no patch edits a value another shares); a patch that does not apply to what the earlier ones
 * left (it edits the first rule and there is none) is left out. Returns the object and the labels
 * of the patches applied.
 */
function applyAll(o: JsonObject, patches: [string, Patch][]): [JsonObject, string[]] {
  let cur = structuredClone(o);
  const applied: string[] = [];
  for (const [label, patch] of patches) {
    const next = structuredClone(cur);
    try {
      patch(next);
    } catch {
      continue;
    }
    cur = next;
    applied.push(label);
  }
  return [cur, applied];
}

/** Up to `max` draws (repeats allowed: a later draw of the same field overrides). */
const draws = <T>(rand: Rand, a: readonly T[], min: number, max: number): T[] =>
  Array.from({ length: min + Math.floor(rand.next() * (max - min + 1)) }, () => rand.pick(a));

function webhookCase(rand: Rand, id: string, top = true): CorpusCase {
  const mutating = rand.next() < 0.5;
  const kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  const variants = webhookVariants(mutating);
  const labels: string[] = [];
  const hooks = Array.from({ length: 1 + Math.floor(rand.next() * 3) }, (_, i) => {
    const [h, applied] = applyAll(
      baseHook(mutating, `h${i}.example.com`),
      draws(rand, variants, 1, 3),
    );
    labels.push(`webhooks[${i}]: ${applied.join(", ") || "valid"}`);
    return h;
  });
  let object = webhookConfig(kind, hooks);
  if (top && rand.next() < 0.2) {
    // A configuration-level variant, applied after the webhooks' own.
    const [o, applied] = applyAll(object, [rand.pick(topVariants(mutating))]);
    object = o;
    labels.push(...applied);
  }
  return { id, description: `${kind}: ${labels.join("; ")}`, apiVersion: `${G}/v1`, kind, object };
}

function policyCase(rand: Rand, id: string): CorpusCase {
  const r = rand.next();
  const version = rand.pick(["v1", "v1", "v1beta1", "v1alpha1"]);
  let kind: string;
  let apiVersion = `${G}/v1`;
  let spec: JsonObject;
  let applied: string[];
  if (r < 0.35) {
    kind = "ValidatingAdmissionPolicy";
    [spec, applied] = applyAll(baseVapSpec(), draws(rand, vapVariants(), 2, 4));
  } else if (r < 0.55) {
    kind = "ValidatingAdmissionPolicyBinding";
    const picked = draws(rand, vapBindingSpecs(), 2, 3);
    spec = Object.assign(okVapBinding(), ...picked.map(([, s]) => structuredClone(s)));
    applied = picked.map(([label]) => label);
  } else if (r < 0.85) {
    kind = "MutatingAdmissionPolicy";
    apiVersion = `${G}/${version}`;
    [spec, applied] = applyAll(okMapSpec(), draws(rand, mapVariants(), 2, 4));
  } else {
    kind = "MutatingAdmissionPolicyBinding";
    apiVersion = `${G}/${version}`;
    const picked = draws(rand, mapBindingSpecs(), 2, 3);
    spec = Object.assign({ policyName: "p" }, ...picked.map(([, s]) => structuredClone(s)));
    applied = picked.map(([label]) => label);
  }
  return {
    id,
    description: `${kind} ${apiVersion.split("/")[1]}: ${applied.join(", ")}`,
    apiVersion,
    kind,
    object: policyObject(apiVersion, kind, spec),
  };
}

/** `count` random cases for `seed`: about half webhook configurations, half policies and bindings. */
export function randomValidationCases(seed: number, count: number): CorpusCase[] {
  const rand = new Rand(seed);
  return Array.from({ length: count }, (_, i) => {
    const id = `s${seed}-${i}`;
    return rand.next() < 0.5 ? webhookCase(rand, id) : policyCase(rand, id);
  });
}

/** A stored object and an update of it (same kind and name). */
export interface UpdateCase {
  old: CorpusCase;
  update: CorpusCase;
}

/** Variants applied to a copy of `o` (of `o`'s kind), as an update would change it. */
function changed(rand: Rand, c: CorpusCase): [JsonObject, string[]] {
  const o = c.object;
  if (c.kind.endsWith("WebhookConfiguration")) {
    const mutating = c.kind.startsWith("Mutating");
    const variants = webhookVariants(mutating);
    const hooks = (o.webhooks as JsonObject[] | undefined) ?? [];
    let cur = structuredClone(o);
    const labels: string[] = [];
    for (const v of draws(rand, variants, 1, 3)) {
      const i = Math.floor(rand.next() * Math.max(1, hooks.length));
      const list = (cur.webhooks as JsonObject[] | undefined) ?? [];
      if (!list[i]) continue;
      const [h, applied] = applyAll(list[i], [v]);
      list[i] = h;
      cur = { ...cur, webhooks: list };
      labels.push(...applied.map((l) => `webhooks[${i}]: ${l}`));
    }
    return [cur, labels];
  }
  const spec = o.spec as JsonObject;
  if (c.kind.endsWith("Binding")) {
    const specs = c.kind.startsWith("Validating") ? vapBindingSpecs() : mapBindingSpecs();
    const picked = draws(rand, specs, 1, 2);
    const next = Object.assign(structuredClone(spec), ...picked.map(([, x]) => structuredClone(x)));
    return [{ ...structuredClone(o), spec: next }, picked.map(([l]) => l)];
  }
  const variants = c.kind.startsWith("Validating") ? vapVariants() : mapVariants();
  const [next, applied] = applyAll(spec, draws(rand, variants, 1, 3));
  return [{ ...structuredClone(o), spec: next }, applied];
}

/**
 * `count` updates for `seed`: the stored object is a random case our validator accepts (named
 * `<prefix>-<n>` so cases can run at once), the update that object with one to three variants
 * more. (No configuration-level variants: they rename the object.)
 */
export function randomUpdateCases(seed: number, count: number, prefix: string): UpdateCase[] {
  const rand = new Rand(seed);
  const out: UpdateCase[] = [];
  for (let i = 0; out.length < count && i < count * 50; i++) {
    const id = `u${seed}-${out.length}`;
    const old = rand.next() < 0.5 ? webhookCase(rand, id, false) : policyCase(rand, id);
    (old.object.metadata as JsonObject).name = `${prefix}-${out.length}`;
    if (ourVerdict(old)?.outcome !== "accepted") continue;
    const [object, labels] = changed(rand, old);
    out.push({
      old,
      update: { ...old, description: `${old.description} → ${labels.join(", ")}`, object },
    });
  }
  return out;
}
