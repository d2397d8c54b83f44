/**
 * The headers the dashboard's own pages send with every API request (Fetch Metadata and the
 * context the page shows). Tests that call the dashboard API outside a page send them too, or
 * the request policy refuses the call — as it should.
 */
export function policyHeaders(context: string): Record<string, string> {
  return { "sec-fetch-site": "same-origin", "x-portcullis-context": context };
}
