import "server-only";

/** The apiserver refuses request bodies over 3 MiB; the dashboard's write API does the same. */
export const MAX_WRITE_BODY_BYTES = 3 * 1024 * 1024;

/** A request the dashboard refuses before doing anything: bad JSON, too large. */
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
export async function readBodyText(request: Request, limit: number): Promise<string> {
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

/** Reads and parses a JSON body (400 when it is not JSON, 413 when it is too large). */
export async function readJson(request: Request, limit = MAX_WRITE_BODY_BYTES): Promise<unknown> {
  const text = await readBodyText(request, limit);
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
