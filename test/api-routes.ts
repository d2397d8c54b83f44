/**
 * Every route handler under app/api with the methods it exports, so tests of the request policy
 * cover a new route without being told about it. `urlPath` names each dynamic segment `x-<name>`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface ApiRoute {
  file: string;
  text: string;
  /** The method's own handler: its export up to the next export (or the end of the file). */
  handler: string;
  urlPath: string;
  method: string;
}

const ROOT = path.resolve(import.meta.dirname, "..");
const API = path.join(ROOT, "app", "api");

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return entry === "route.ts" ? [full] : [];
  });
}

export function apiRoutes(): ApiRoute[] {
  return routeFiles(API).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    const urlPath =
      "/" +
      path
        .relative(path.join(ROOT, "app"), path.dirname(file))
        .split(path.sep)
        .map((seg) => seg.replace(/^\[(.+)\]$/, "x-$1"))
        .join("/");
    const exports = [...text.matchAll(/^export /gm)].map((m) => m.index);
    const methods = [
      ...text.matchAll(/export (?:(?:async )?function|const) (GET|HEAD|POST|PUT|PATCH|DELETE)\b/g),
    ].map((m) => ({
      method: m[1] as string,
      handler: text.slice(m.index, exports.find((at) => at > m.index) ?? text.length),
    }));
    return methods.map(({ method, handler }) => ({
      file: path.relative(ROOT, file),
      text,
      handler,
      urlPath,
      method,
    }));
  });
}
