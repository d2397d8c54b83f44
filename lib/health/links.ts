/** Links between the Health page, the detail pages, decisions and prediction (pure). */

/** The Health page row id of a hook (webhook or conversion webhook) at `index` of its source. */
export function healthRowId(source: string, configuration: string, index: number): string {
  return `health-${source}-${configuration}-${index}`;
}

/** The Health page row id of a validating admission policy binding. */
export function policyHealthRowId(policy: string, binding: string): string {
  return `health-policy-${policy}-${binding}`;
}

/** The Health page, scrolled to one row. */
export function healthHref(rowId: string): string {
  return `/health#${encodeURIComponent(rowId)}`;
}

/** The decision feed filtered to one webhook (by name, as the audit annotations name it). */
export function hookDecisionsHref(hook: string): string {
  return `/decisions?${new URLSearchParams({ hook }).toString()}`;
}

/** The decision feed filtered to one admission policy. */
export function policyDecisionsHref(policy: string): string {
  return `/decisions?${new URLSearchParams({ policy }).toString()}`;
}

/** Where to ask which hooks a request would call. */
export const PREDICT_HREF = "/predict";
