/**
 * What the validation oracles share: each case is dry-run created on the real kube-apiserver
 * (dryRun=All, fieldValidation=Strict) and validated by our validator; they agree when the
 * outcome (accepted, invalid, decode-error), the set of field paths named and the status message
 * are the same.
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { httpsRequest } from "../../cluster/https-json";
import { readStack, stackMinor } from "../../cluster/harness/stack";
import { PATH_NOT_FOUND } from "../../lib/admission/prediction/served-operations";
import { kindInfoFor } from "../../lib/admission/validate/kind-info";
import { validateObject } from "../../lib/admission/validate/validate-object";
import type { JsonObject } from "../../lib/admission/validate/json";
import type { CorpusCase } from "./validation-corpus";
import type { UpdateCase } from "./validation-random";
import { resourceFor } from "./validation-corpus";
import { serverVerdict, type ServerVerdict } from "./server-verdict";

/**
 * How long one request may take. 1.36.3's apiserver (cel-go v0.26) took 5 to 14 s alone to
 * answer a policy whose expression is a map literal nested 250 deep (the corpus's recursion-limit
 * cases), and more than 30 s with four requests at once on a loaded machine: the verdict comes,
 * the same as ours, only late. Past its own 60 s deadline the apiserver answers 504, which is no
 * verdict: such a case is sent once more, alone.
 */
const REQUEST_TIMEOUT_MS = 90_000;

/** Our validator's verdict on one case. */
export interface OurVerdict {
  outcome: string;
  fields: string[];
  message: string;
}

export interface Judged {
  c: CorpusCase;
  server: ServerVerdict;
  ours: OurVerdict | undefined;
  /** The same outcome, the same field paths and the same message (see comparableMessage). */
  agree: boolean;
}

/**
 * A status message with what cannot or need not match blanked: the random suffix the apiserver
 * gives a generateName, and every CEL issue after a field's first (cel-go may report several
 * where we report the first, e.g. both halves of an undeclared `math.greatest`).
 */
function comparableMessage(message: string, object: CorpusCase["object"]): string {
  const meta = object.metadata;
  const gen =
    meta && typeof meta === "object" && !Array.isArray(meta) && !meta.name
      ? meta.generateName
      : undefined;
  let m = message;
  if (typeof gen === "string" && gen !== "") {
    const quoted = gen.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    m = m.replace(new RegExp(`"${quoted}[a-z0-9]{5}"`, "g"), `"${gen}?????"`);
  }
  return m.replace(/\nERROR: <input>:[^\n]*(\n \| [^\n]*\n \| [.\uff0e]*[\^\uff3e])?/g, "");
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

/**
 * mapLimit, then each item whose answer is the apiserver's own 504 (it gave up at its request
 * deadline: no verdict) once more, alone. Still a 504, it stands and disagrees.
 */
async function mapLimitRetryingTimeouts<T, R>(
  items: T[],
  limit: number,
  fn: (t: T) => Promise<R>,
  timedOut: (r: R) => boolean,
): Promise<R[]> {
  const out = await mapLimit(items, limit, fn);
  for (let i = 0; i < items.length; i++)
    if (timedOut(out[i] as R)) out[i] = await fn(items[i] as T);
  return out;
}

const APISERVER_TIMEOUT = "http-504";

/**
 * Our validator's verdict on a create, or with `old` (the stored object) an update: the schema's
 * fields for a decode error, else the admission errors'.
 */
export function ourVerdict(c: CorpusCase, old?: JsonObject): OurVerdict | undefined {
  // As the stack's minor knows the kind (npm run test:versions runs older minors).
  const kindInfo = kindInfoFor(c.apiVersion, c.kind, stackMinor());
  if (!kindInfo) {
    // A kind the newest minor has at a version this one lacks (MutatingAdmissionPolicy v1 before
    // 1.36): its path is not served, so the router answers 404 before any validation.
    if (kindInfoFor(c.apiVersion, c.kind))
      return {
        outcome: `http-${PATH_NOT_FOUND.status}`,
        fields: [],
        message: PATH_NOT_FOUND.message,
      };
    return undefined;
  }
  const v = validateObject(kindInfo, c.object, old, { minor: stackMinor() });
  const fields =
    v.outcome === "decode-error"
      ? v.issues
          .filter((i) => i.source === "schema" && i.type !== "FieldValueTypeInvalid")
          .map((i) => i.field)
      : v.issues
          .filter((i) => i.source === "admission" && i.severity === "error")
          .map((i) => i.field);
  return { outcome: v.outcome, fields: [...new Set(fields)].sort(), message: v.statusMessage };
}

function agrees(c: CorpusCase, server: ServerVerdict, ours: OurVerdict | undefined): boolean {
  return (
    ours !== undefined &&
    server.outcome === ours.outcome &&
    JSON.stringify(server.fields) === JSON.stringify(ours.fields) &&
    (server.outcome === "accepted" ||
      comparableMessage(server.message, c.object) === comparableMessage(ours.message, c.object))
  );
}

/**
 * Every update through the apiserver (four at a time: the stored object created for real, the
 * update sent as a dry run with its resourceVersion, the object deleted) and through our
 * validator, which is given the object as the apiserver stored it.
 */
export async function judgeUpdates(cases: UpdateCase[]): Promise<Judged[]> {
  const info = readStack();
  const ca = readFileSync(info.caFile);
  const call = (url: string, method: string, body?: unknown) =>
    httpsRequest(url, {
      method,
      token: info.tokens.admin,
      ca,
      body,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
  const one = async ({ old, update }: UpdateCase): Promise<Judged> => {
    const base = `${info.server}/apis/${old.apiVersion}/${resourceFor(old.kind)}`;
    const created = await call(`${base}?fieldValidation=Strict`, "POST", old.object);
    if (created.status !== 201)
      return {
        c: old,
        server: serverVerdict(created.status, created.body),
        ours: ourVerdict(old),
        agree: false,
      };
    let stored = JSON.parse(created.body) as JsonObject;
    const name = String((stored.metadata as JsonObject).name);
    try {
      // A policy's status (type checking) is written after its create: on a conflict, read the
      // stored object again and resend.
      for (let attempt = 0; ; attempt++) {
        const meta = stored.metadata as JsonObject;
        const object = {
          ...update.object,
          metadata: {
            ...(update.object.metadata as JsonObject),
            resourceVersion: meta.resourceVersion ?? "",
          },
        };
        const c = { ...update, object };
        const res = await call(`${base}/${name}?dryRun=All&fieldValidation=Strict`, "PUT", object);
        if (res.status === 409 && attempt < 5) {
          stored = JSON.parse((await call(`${base}/${name}`, "GET")).body) as JsonObject;
          continue;
        }
        const server = serverVerdict(res.status, res.body);
        const ours = ourVerdict(c, stored);
        return { c, server, ours, agree: agrees(c, server, ours) };
      }
    } finally {
      await call(`${base}/${name}`, "DELETE");
    }
  };
  return mapLimitRetryingTimeouts(cases, 4, one, (r) => r.server.outcome === APISERVER_TIMEOUT);
}

/** The apiserver's verdict on a dry-run create of every case (four at a time). */
export async function serverVerdicts(cases: CorpusCase[]): Promise<ServerVerdict[]> {
  const info = readStack();
  const ca = readFileSync(info.caFile);
  const one = async (c: CorpusCase): Promise<ServerVerdict> => {
    const url = `${info.server}/apis/${c.apiVersion}/${resourceFor(c.kind)}?dryRun=All&fieldValidation=Strict`;
    const res = await httpsRequest(url, {
      method: "POST",
      token: info.tokens.admin,
      ca,
      body: c.object,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    return serverVerdict(res.status, res.body);
  };
  return mapLimitRetryingTimeouts(cases, 4, one, (v) => v.outcome === APISERVER_TIMEOUT);
}

/** Every case through the apiserver and through our validator. */
export async function judge(cases: CorpusCase[]): Promise<Judged[]> {
  const verdicts = await serverVerdicts(cases);
  return cases.map((c, i) => {
    const server = verdicts[i] as ServerVerdict;
    const ours = ourVerdict(c);
    return { c, server, ours, agree: agrees(c, server, ours) };
  });
}

/**
 * Writes the disagreements to `<tmp>/<name>.json` (objects included, to replay them) and prints
 * the first 40; returns the file's path.
 */
export function reportDisagreements(name: string, judged: Judged[]): string {
  const bad = judged.filter((r) => !r.agree);
  const file = path.join(os.tmpdir(), `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      bad.map((r) => ({
        id: r.c.id,
        description: r.c.description,
        object: r.c.object,
        server: r.server,
        ours: r.ours,
      })),
      null,
      2,
    ),
  );
  for (const r of bad.slice(0, 40))
    console.log(
      `DISAGREE ${r.c.id} ${r.c.description}\n  server ${r.server.status} ${JSON.stringify(r.server.fields)} ${r.server.message.slice(0, 300)}\n  ours   ${r.ours?.outcome} ${JSON.stringify(r.ours?.fields)} ${r.ours?.message.slice(0, 300)}`,
    );
  return file;
}
