import type { IncomingHttpHeaders } from "node:http";

/** The apiserver's verdict on one dry-run create, as the validation oracles compare it. */
export interface ServerVerdict {
  status: number;
  /** accepted, invalid (422), decode-error (400, strict decoding) or http-<status>. */
  outcome: string;
  /** Field paths the apiserver named: 422 causes, or the fields a 400 strict-decoding message quotes. */
  fields: string[];
  message: string;
}

/** Reads a dry-run answer (status + body text) into a ServerVerdict. */
export function serverVerdict(status: number, body: string): ServerVerdict {
  let message = "";
  let fields: string[] = [];
  try {
    const s = JSON.parse(body) as { message?: string; details?: { causes?: { field?: string }[] } };
    message = s.message ?? "";
    if (status === 422) fields = (s.details?.causes ?? []).map((c) => c.field ?? "");
  } catch {
    message = body.slice(0, 300);
  }
  if (status === 400)
    fields = [...message.matchAll(/(?:unknown|duplicate) field "([^"]*)"/g)].map((m) => m[1] ?? "");
  const outcome =
    status < 300
      ? "accepted"
      : status === 422
        ? "invalid"
        : status === 400
          ? "decode-error"
          : `http-${status}`;
  return { status, outcome, fields: [...new Set(fields)].sort(), message };
}

/** The text of each `Warning: 299 - "…"` header, unquoted (Node reads header bytes as Latin-1). */
export function warningTexts(res: { headers: IncomingHttpHeaders }): string[] {
  const raw = res.headers.warning;
  const headers = (Array.isArray(raw) ? raw : raw ? [raw] : []).map((h) =>
    Buffer.from(h, "latin1").toString("utf8"),
  );
  const out: string[] = [];
  for (const h of headers)
    for (const m of h.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g))
      out.push((m[1] ?? "").replace(/\\(.)/g, "$1"));
  return out;
}
