/**
 * One contract per API route: its method, its path (the app/api folders it lives in, `[name]`
 * for a dynamic segment), the zod schema of its input and the types of its response and of its
 * error. The route handler answers through it (server/http/respond.ts `respond`, so a response
 * of another shape does not compile) and the browser calls through it (lib/api/client.ts
 * `callApi`), so the two cannot disagree on a shape. Pure: shared by server and browser.
 */
import type { z } from "zod";
import type { KubeApiErrorBody } from "@/lib/k8s/errors";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * The zod schema of a route's input: the JSON body of a POST, PUT, PATCH or DELETE, the query of
 * a GET. null: the route takes none, or reads its query itself (`query` of callApi).
 */
export type InputSchema = z.ZodType | null;

export interface Route<
  M extends Method = Method,
  P extends string = string,
  I extends InputSchema = InputSchema,
  R = unknown,
  E extends KubeApiErrorBody = KubeApiErrorBody,
> {
  readonly method: M;
  readonly path: P;
  readonly input: I;
  /** Type only (never set): the response body, or for an event stream one message of it. */
  readonly response?: R;
  /** Type only (never set): the body of an error answer. */
  readonly error?: E;
}

/** Any route's contract. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the widest contract, for constraints only
export type AnyRoute = Route<Method, string, InputSchema, any, any>;

export type ResponseOf<C extends AnyRoute> =
  C extends Route<Method, string, InputSchema, infer R, KubeApiErrorBody> ? R : never;
export type ErrorOf<C extends AnyRoute> =
  C extends Route<Method, string, InputSchema, unknown, infer E> ? E : never;

type Segment<S extends string> = S extends `[...${infer N}]`
  ? N
  : S extends `[${infer N}]`
    ? N
    : never;
type ParamNames<P extends string> = P extends `${infer A}/${infer B}`
  ? Segment<A> | ParamNames<B>
  : Segment<P>;
/** The dynamic segments of a path, by name. */
type PathParams<P extends string> = { [K in ParamNames<P>]: string };
type ParamsOf<C extends AnyRoute> = PathParams<C["path"]>;

/**
 * A route's contract: `route<Response, Error>()({ method, path, input })`. (Two calls: the
 * response and error types are named, the rest is inferred.)
 */
export function route<R, E extends KubeApiErrorBody = KubeApiErrorBody>() {
  return <const M extends Method, const P extends string, I extends InputSchema = null>(def: {
    method: M;
    path: P;
    input?: I;
  }): Route<M, P, I, R, E> => ({
    method: def.method,
    path: def.path,
    input: (def.input ?? null) as I,
  });
}

/** The path with its dynamic segments filled in (each one URI-encoded). */
function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`no value for the path segment [${name}] of ${path}`);
    return encodeURIComponent(v);
  });
}

/**
 * An error the dashboard itself answers (bad input, nothing there, a transport failure): no
 * apiserver answered it, so it names no cluster. The one place `cluster` is filled in for them.
 */
export function dashboardError<T extends Omit<KubeApiErrorBody, "cluster">>(
  e: T,
): T & { cluster: string } {
  // `cluster` right after the message, as KubeApiError's own JSON has it, before what a route's
  // error adds (a rename's steps).
  const { status, reason, message, ...rest } = e;
  return { status, reason, message, cluster: "", ...rest } as T & { cluster: string };
}

type ParamsOption<C extends AnyRoute> = [keyof ParamsOf<C>] extends [never]
  ? { params?: undefined }
  : { params: ParamsOf<C> };
type InputOption<C extends AnyRoute> = C["input"] extends z.ZodType
  ? { input: z.input<C["input"]> }
  : { input?: undefined };

/** What a call names beyond the route: its path's segments, its input, a query of its own. */
export type UrlOptions<C extends AnyRoute> = ParamsOption<C> &
  InputOption<C> & {
    /**
     * A query the route reads itself (without the `?`): for routes whose query has no schema
     * here (the decision filter, backend targets, watched collections).
     */
    query?: string;
  };

/** The input of a GET as its query: fields in the input's order, arrays repeated, undefined left out. */
function encodeQuery(input: unknown): string {
  if (input === undefined || input === null) return "";
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? (v as unknown[]) : [v]) q.append(k, String(one));
  }
  return q.toString();
}

/** A route's URL (path and query; no origin). */
export function apiUrl<C extends AnyRoute>(route: C, opts: UrlOptions<C>): string {
  const o = opts as { params?: Record<string, string>; input?: unknown; query?: string };
  const path = fillPath(route.path, o.params ?? {});
  const fromInput = route.method === "GET" || route.method === "HEAD" ? encodeQuery(o.input) : "";
  const query = [fromInput, o.query ?? ""].filter((s) => s !== "").join("&");
  return query ? `${path}?${query}` : path;
}
