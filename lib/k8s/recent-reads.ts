/**
 * Reads shared while they are recent (pure): one read per key at a time, its answer reused for
 * `ttlMs` after it started, a failure forgotten at once so the next caller reads again.
 */
export function recentReads<T>(
  ttlMs: number,
  now: () => number = Date.now,
): (key: string, read: () => Promise<T>) => Promise<T> {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return (key, read) => {
    const hit = entries.get(key);
    if (hit && now() - hit.at < ttlMs) return hit.value;
    const value = read();
    const entry = { at: now(), value };
    entries.set(key, entry);
    value.catch(() => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    return value;
  };
}
