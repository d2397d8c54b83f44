/**
 * `host:port` or `[v6]:port`, as the PORTCULLIS_*_LISTEN settings take it; `variable` names the
 * setting in the error.
 */
export function parseListenAddress(
  listen: string,
  variable: string,
): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(listen.trim());
  const port = Number(m?.[3]);
  const host = m?.[1] ?? m?.[2];
  if (!m || !host || port > 65535) {
    throw new Error(`${variable} must be host:port, not "${listen}"`);
  }
  return { host, port };
}
