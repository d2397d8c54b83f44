/**
 * A small least-recently-used memo: the value for `key`, made by `make` when it is not among the
 * last `size` keys asked for. For what the server derives from one cluster state per request (a
 * page's first screen) and would otherwise make again on every load of an unchanged cluster.
 */
export class Recent<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string, make: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting marks it the most recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = make();
    if (this.entries.size >= this.size) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, value);
    return value;
  }
}
