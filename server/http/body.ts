import "server-only";
import {
  jsonNestsDeeperThan,
  MAX_API_BODY_BYTES,
  MAX_JSON_DEPTH,
  MAX_SIGN_IN_BODY_BYTES,
  tooDeepMessage,
} from "@/lib/http/json-limits";
import { SESSIONLESS_ROUTES } from "@/lib/http/request-policy";
import { isSharedMode } from "@/server/kube/config";
import { authorizeSession, countSignInAttempt } from "@/server/auth/sign-in";

/** The apiserver refuses request bodies over 3 MiB; the dashboard's write API does the same. */
const MAX_WRITE_BODY_BYTES = MAX_API_BODY_BYTES;

/** A request the dashboard refuses before doing anything: bad JSON, too large, nested too deep. */
export class RequestBodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    readonly reason: "BadRequest" | "RequestEntityTooLarge",
    message: string,
  ) {
    super(message);
    this.name = "RequestBodyError";
  }
}

/** Reads the body as text, refusing (413) more than `limit` bytes without buffering them. */
async function readBodyText(request: Request, limit: number): Promise<string> {
  return (await readBodyBytes(request, limit)).toString("utf8");
}

/** Reads the body's bytes, refusing (413) more than `limit` without buffering them. */
export async function readBodyBytes(request: Request, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new RequestBodyError(413, "RequestEntityTooLarge", `request body larger than ${limit} bytes`);
  if (Number(request.headers.get("content-length") ?? "0") > limit) throw tooLarge();
  const reader = request.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Before a body is read, who sent it is counted. Shared mode: a sign-in route counts the attempt
 * against the sign-in rate limit (429 past it) and reads at most MAX_SIGN_IN_BODY_BYTES; every
 * other route needs a live session (401 without one). So a stranger, or a signed-out cookie,
 * costs the server no parse at all. Local mode has no users to count: the request policy
 * (proxy.ts) already let only the dashboard's own pages through. Returns the byte limit to read.
 */
async function admitBody(request: Request, limit: number): Promise<number> {
  if (!isSharedMode()) return limit;
  const pathname = new URL(request.url).pathname;
  if (SESSIONLESS_ROUTES.some((r) => r.method === request.method && r.path === pathname)) {
    countSignInAttempt(request);
    return Math.min(limit, MAX_SIGN_IN_BODY_BYTES);
  }
  await authorizeSession(request);
  return limit;
}

/**
 * Parses `text` as JSON within the dashboard's limits: 400 when it is not JSON, or when it nests
 * deeper than MAX_JSON_DEPTH (checked over the text first, so JSON.parse and everything after it
 * never meets a body that would overflow the stack).
 */
function parseJsonText(text: string): unknown {
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new RequestBodyError(400, "BadRequest", tooDeepMessage(MAX_JSON_DEPTH));
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new RequestBodyError(
      400,
      "BadRequest",
      `request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/**
 * Reads and parses a JSON body, in this order: the sender counted (admitBody: 401 without a
 * live session, 429 past the sign-in limit), at most `limit` bytes read (413 past it), the
 * nesting checked (400 past MAX_JSON_DEPTH), then parsed (400 when it is not JSON).
 */
export async function readJson(request: Request, limit = MAX_WRITE_BODY_BYTES): Promise<unknown> {
  const text = await readBodyText(request, await admitBody(request, limit));
  return parseJsonText(text);
}
