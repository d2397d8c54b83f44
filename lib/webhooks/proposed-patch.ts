/**
 * A proposed edit carried in the edit page's URL (`?patch=<RFC 6902 JSON>&why=<text>`), as the
 * lint findings link it. The URL is hostile input: bounded, parsed once, checked by shape; the
 * editor then applies it to the stored object and shows the diff before anything is sent.
 */
import { z } from "zod";

const MAX_CHARS = 16_000;

const operation = z.discriminatedUnion("op", [
  z.object({ op: z.literal("add"), path: z.string().max(500), value: z.unknown() }),
  z.object({ op: z.literal("replace"), path: z.string().max(500), value: z.unknown() }),
  z.object({ op: z.literal("test"), path: z.string().max(500), value: z.unknown() }),
  z.object({ op: z.literal("remove"), path: z.string().max(500) }),
]);

/** One RFC 6902 operation the editor accepts. */
export type ProposedOperation = z.infer<typeof operation>;

const patchSchema = z.array(operation).min(1).max(32);

/** Parses `?patch=`: the operations, or an error message for the page to show. */
export function parseProposedPatch(
  raw: string | undefined,
): { ok: true; patch: ProposedOperation[] } | { ok: false; message: string } | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw.length > MAX_CHARS)
    return { ok: false, message: `the proposed patch is longer than ${MAX_CHARS} characters` };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, message: "the proposed patch is not JSON" };
  }
  const r = patchSchema.safeParse(json);
  if (!r.success)
    return {
      ok: false,
      message: "the proposed patch is not an RFC 6902 patch this editor applies",
    };
  // Metadata carries the resourceVersion precondition: a proposal never touches it.
  if (r.data.some((o) => !o.path.startsWith("/webhooks/")))
    return { ok: false, message: "a proposed patch may only change /webhooks/…" };
  return { ok: true, patch: r.data };
}
