import type { FieldError } from "./field-error";
import { invalid, invalidScalar, required } from "./field-error";
import type { FieldPath } from "./field-path";
import { isDNS1123Subdomain, isValidPortNum } from "./dns";
import { goParseUrl } from "./go-url";
import type { JsonObject } from "./json";
import { obj, optNum, optStr, str } from "./json";

const form = "; desired format: https://host[/path]";

/** webhook.ValidateWebhookURL with forceHttps=true. */
function validateWebhookURL(p: FieldPath, raw: string): FieldError[] {
  const parsed = goParseUrl(raw);
  if (!parsed.ok) return [required(p, "url must be a valid URL: " + parsed.error + form)];
  const u = parsed.url;
  const errs: FieldError[] = [];
  if (u.scheme !== "https")
    errs.push(invalid(p, u.scheme, "'https' is the only allowed URL scheme" + form));
  if (u.host.length === 0) errs.push(invalid(p, u.host, "host must be specified" + form));
  if (u.user !== undefined)
    errs.push(invalid(p, u.user, "user information is not permitted in the URL"));
  if (u.fragment.length !== 0)
    errs.push(invalid(p, u.fragment, "fragments are not permitted in the URL"));
  if (u.rawQuery.length !== 0)
    errs.push(invalid(p, u.rawQuery, "query parameters are not permitted in the URL"));
  return errs;
}

/**
 * webhook.ValidateWebhookService(fldPath, namespace, name, path, port). `port` is the defaulted
 * value (443 when unset).
 */
function validateWebhookService(
  p: FieldPath,
  namespace: string,
  name: string,
  path: string | undefined,
  port: number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(required(p.child("name")));
  if (namespace.length === 0) errs.push(required(p.child("namespace")));
  const portErrs = isValidPortNum(port);
  if (portErrs.length)
    errs.push(invalidScalar(p.child("port"), port, "port is not valid: " + portErrs.join(", ")));
  if (path === undefined || path === "/" || path.length === 0) return errs;
  const pp = p.child("path");
  if (path === "//") {
    errs.push(invalid(pp, path, "segment[0] may not be empty"));
    return errs;
  }
  if (!path.startsWith("/")) errs.push(invalid(pp, path, "must start with a '/'"));
  let toCheck = path.slice(1);
  if (toCheck.endsWith("/")) toCheck = toCheck.slice(0, -1);
  toCheck.split("/").forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(pp, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of isDNS1123Subdomain(step)) errs.push(invalid(pp, path, `segment[${i}]: ${f}`));
  });
  return errs;
}

/**
 * The clientConfig switch of validate{Validating,Mutating}Webhook, including the upstream quirk:
 * the caller passes (Service.Name, Service.Namespace) into (namespace, name) parameters, so a
 * missing name is reported at `service.namespace` and a missing namespace at `service.name`.
 */
export function validateClientConfig(cc: JsonObject | undefined, p: FieldPath): FieldError[] {
  const url = optStr(cc, "url");
  const svc = obj(cc, "service");
  if ((url === undefined) === (svc === undefined))
    return [required(p, "exactly one of url or service is required")];
  if (url !== undefined) return validateWebhookURL(p.child("url"), url);
  return validateWebhookService(
    p.child("service"),
    str(svc, "name"),
    str(svc, "namespace"),
    optStr(svc, "path"),
    optNum(svc, "port") ?? 443,
  );
}
