// Plain Node: no Next, no "server-only" (unit-tested as is).

/** An object the hub keeps, as far as the List's body needs it. */
interface Keyed {
  metadata?: { name?: string; namespace?: string };
}

/** The List as served bytes, for one state of the collection. */
export interface ServedList {
  resourceVersion: string;
  /** The List's JSON text, UTF-8. */
  json: Buffer;
}

/**
 * The serialised List of a watched collection, kept between requests: each item's JSON text is
 * made once when the item arrives or changes, and the List's bytes once per state (resourceVersion
 * and changes). Requests between two changes cost no serialisation at all, so serving the list
 * costs less than the apiserver's own list.
 *
 * Items are in the apiserver's order (by namespace, then name), as a List from it would be.
 */
export class ListBody<T extends Keyed> {
  private readonly itemJson = new Map<string, string>();
  private version = 0;
  private built:
    | { version: number; resourceVersion: string; served: ServedList; sortedKeys: string[] }
    | undefined;

  /** The List's own apiVersion and kind (e.g. `ValidatingWebhookConfigurationList`). */
  constructor(private readonly head: { apiVersion?: string; kind?: string } = {}) {}

  /** The item under `key` was added, changed or removed. */
  changed(key: string): void {
    this.itemJson.delete(key);
    this.version++;
  }

  /** Every item may have changed (a relist); `head` is the new List's apiVersion and kind. */
  reset(head: { apiVersion?: string; kind?: string }): void {
    this.itemJson.clear();
    this.head.apiVersion = head.apiVersion;
    this.head.kind = head.kind;
    this.version++;
  }

  /** The List of `items` (by key) at `resourceVersion`. */
  serve(items: ReadonlyMap<string, T>, resourceVersion: string): ServedList {
    const b = this.built;
    if (b && b.version === this.version && b.resourceVersion === resourceVersion) return b.served;
    // A bookmark moves only the resourceVersion: the items' order and text are kept.
    const sortedKeys =
      b && b.version === this.version ? b.sortedKeys : [...items.keys()].sort(byApiserverOrder);
    const parts: string[] = [];
    for (const k of sortedKeys) {
      let text = this.itemJson.get(k);
      if (text === undefined) {
        const item = items.get(k);
        if (item === undefined) continue;
        text = JSON.stringify(item);
        this.itemJson.set(k, text);
      }
      parts.push(text);
    }
    const head = JSON.stringify({
      kind: this.head.kind,
      apiVersion: this.head.apiVersion,
      metadata: { resourceVersion },
    });
    // `{…,"metadata":{…}}` → `{…,"metadata":{…},"items":[…]}`
    const json = Buffer.from(`${head.slice(0, -1)},"items":[${parts.join(",")}]}`, "utf8");
    const served: ServedList = { resourceVersion, json };
    this.built = { version: this.version, resourceVersion, served, sortedKeys };
    return served;
  }
}

/** etcd's key order, which is the order of a List: `namespace/name` compared by code unit. */
function byApiserverOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
