import "server-only";
import type { KubeClient, WatchEvent } from "./client";
import { kubeClientFor } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import { collectionFromList, type KubeList } from "@/lib/api/kube-list";
import { ListBody, type ServedList } from "./list-body";
import { dashboardError } from "@/lib/api/contract";

/** A Kubernetes object as the hub keeps it: only metadata is read here. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
  [key: string]: unknown;
}

/** What a hub subscriber receives. */
export type HubEvent =
  | { type: "SYNC"; resourceVersion: string; items: KubeObject[] }
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: KubeObject }
  | { type: "ERROR"; error: { status: number; reason: string; message: string } };

type Listener = (e: HubEvent) => void;

function key(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

/** A watch with no subscriber is stopped after this long (PORTCULLIS_WATCH_IDLE_MS). */
const IDLE_STOP_MS = positiveEnv("PORTCULLIS_WATCH_IDLE_MS") ?? 30_000;
/** Each upstream watch request ends after this long and is renewed from its resourceVersion. */
const WATCH_TIMEOUT_SECONDS = positiveEnv("PORTCULLIS_WATCH_TIMEOUT_SECONDS") ?? 300;

/**
 * A watch request on which nothing arrives for this long past its timeoutSeconds is given up and
 * the collection relisted. The apiserver ends each watch at timeoutSeconds, so one that stays
 * silent longer rides a connection that died without closing (a half-open TCP connection after a
 * node, load balancer or network failure), and would otherwise hold stale objects, without an
 * error, for as long as the process lives.
 */
const WATCH_SILENCE_GRACE_MS = 10_000;

function positiveEnv(name: string): number | undefined {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
/** Retries back off from 1 s to 30 s while the upstream keeps failing. */
const RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** Upstream list+watches one context may hold open at once. */
const MAX_WATCHES_PER_CONTEXT = 64;

/**
 * One upstream list+watch for one (context, collection path), shared by every subscriber.
 * It keeps the current objects so a new subscriber starts from a SYNC snapshot, then gets
 * deltas; on 410 Gone or a broken stream it relists and sends a fresh SYNC.
 */
class SharedWatch {
  private readonly listeners = new Set<Listener>();
  private readonly items = new Map<string, KubeObject>();
  private resourceVersion = "";
  private synced = false;
  private abort: AbortController | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastError: HubEvent | undefined;
  /** The collection's List as served bytes, kept between requests (see list-body.ts). */
  private readonly body = new ListBody<KubeObject>();

  constructor(
    private readonly client: KubeClient,
    private readonly path: string,
    private readonly onIdle: () => void,
  ) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    if (this.synced) listener(this.snapshot());
    else if (this.lastError) listener(this.lastError);
    if (!this.abort) this.run();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.idleTimer = setTimeout(() => this.stop(), IDLE_STOP_MS);
      }
    };
  }

  /** The List as it stands (only meaningful once synced). */
  served(): ServedList {
    return this.body.serve(this.items, this.resourceVersion);
  }

  private snapshot(): HubEvent {
    return { type: "SYNC", resourceVersion: this.resourceVersion, items: [...this.items.values()] };
  }

  private emit(e: HubEvent): void {
    for (const l of this.listeners) l(e);
  }

  private stop(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.onIdle();
  }

  private run(): void {
    const abort = new AbortController();
    this.abort = abort;
    void (async () => {
      let retryMs = RETRY_MS;
      while (!abort.signal.aborted) {
        // The pause grows while the watch keeps failing, and starts over once a watch has worked:
        // a list that succeeds does not reset it, or a watch refused after every list (RBAC
        // granting list but not watch, a proxy that does not pass watches) relisted every second.
        let delivered = false;
        try {
          if (!this.synced) await this.relist(abort.signal);
          await this.client.watch<KubeObject>(
            {
              path: this.path,
              query: {
                resourceVersion: this.resourceVersion,
                allowWatchBookmarks: true,
                timeoutSeconds: WATCH_TIMEOUT_SECONDS,
              },
              signal: abort.signal,
              timeoutMs: WATCH_TIMEOUT_SECONDS * 1000 + WATCH_SILENCE_GRACE_MS,
            },
            (e) => {
              delivered = true;
              this.apply(e);
            },
          );
          retryMs = RETRY_MS;
        } catch (e) {
          if (abort.signal.aborted) return;
          if (delivered) retryMs = RETRY_MS;
          if (e instanceof KubeApiError) {
            this.lastError = {
              type: "ERROR",
              error: { status: e.status, reason: e.reason, message: e.message },
            };
            if (e.status !== 410) this.emit(this.lastError);
          }
          this.synced = false;
          await new Promise((r) => setTimeout(r, retryMs));
          retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
        }
      }
    })();
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const raw = await this.client.request<KubeList<KubeObject>>({ path: this.path, signal });
    const list = collectionFromList(raw);
    this.items.clear();
    this.body.reset({ apiVersion: raw.apiVersion, kind: raw.kind });
    // List items come without apiVersion/kind, filled in so subscribers see whole objects.
    for (const item of list.items) this.items.set(key(item), item);
    this.resourceVersion = list.resourceVersion;
    this.synced = true;
    this.lastError = undefined;
    this.emit(this.snapshot());
  }

  private apply(e: WatchEvent<KubeObject>): void {
    if (e.type === "ERROR") {
      const status = (e.object as { code?: number }).code ?? 500;
      throw new KubeApiError({
        status,
        reason: (e.object as { reason?: string }).reason ?? "WatchError",
        message: (e.object as { message?: string }).message ?? "watch error",
        cluster: this.client.server,
      });
    }
    const rv = e.object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (e.type === "BOOKMARK") return;
    const k = key(e.object);
    if (e.type === "DELETED") this.items.delete(k);
    else this.items.set(k, e.object);
    this.body.changed(k);
    this.emit({ type: e.type, object: e.object });
  }
}

class WatchHub {
  private readonly watches = new Map<string, SharedWatch>();

  /** Subscribes to a collection (e.g. /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations) as `context`. */
  subscribe(context: string, path: string, listener: Listener): () => void {
    return this.watchFor(context, path).subscribe(listener);
  }

  private watchFor(context: string, path: string): SharedWatch {
    const k = `${context}\u0000${path}`;
    let w = this.watches.get(k);
    if (!w) {
      let open = 0;
      for (const other of this.watches.keys()) if (other.startsWith(`${context}\u0000`)) open++;
      if (open >= MAX_WATCHES_PER_CONTEXT) {
        throw new KubeApiError(
          dashboardError({
            status: 429,
            reason: "TooManyWatches",
            message: `the dashboard already holds ${open} upstream watches for context "${context}"`,
          }),
        );
      }
      w = new SharedWatch(kubeClientFor(context), path, () => this.watches.delete(k));
      this.watches.set(k, w);
    }
    return w;
  }

  /**
   * The collection as the hub holds it (listing it first if no watch is open). The watch then
   * stays open for its idle time, so a browser that subscribes next starts from this same
   * snapshot (same resourceVersion) instead of a second list.
   */
  current(
    context: string,
    path: string,
    signal?: AbortSignal,
  ): Promise<{ resourceVersion: string; items: KubeObject[] }> {
    return this.whenSynced(context, path, signal, (_, e) => ({
      resourceVersion: e.resourceVersion,
      items: e.items,
    }));
  }

  /**
   * The collection's List as served bytes (see list-body.ts), from the same snapshot `current`
   * gives: made once per change, not per request.
   */
  list(context: string, path: string, signal?: AbortSignal): Promise<ServedList> {
    return this.whenSynced(context, path, signal, (w) => w.served());
  }

  /** `read` of the collection's watch once it holds a snapshot; rejects with its error. */
  private whenSynced<T>(
    context: string,
    path: string,
    signal: AbortSignal | undefined,
    read: (w: SharedWatch, sync: Extract<HubEvent, { type: "SYNC" }>) => T,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new Error("aborted"));
        return;
      }
      let done = false;
      const finish = () => {
        done = true;
        signal?.removeEventListener("abort", onAbort);
        // Deferred: a synced watch answers inside subscribe(), before it has returned.
        queueMicrotask(() => unsubscribe());
      };
      const onAbort = () => {
        if (done) return;
        finish();
        reject(new Error("aborted"));
      };
      const w = this.watchFor(context, path);
      const unsubscribe = w.subscribe((e) => {
        if (done) return;
        if (e.type === "SYNC") {
          finish();
          resolve(read(w, e));
        } else if (e.type === "ERROR") {
          finish();
          reject(new KubeApiError(dashboardError({ ...e.error })));
        }
      });
      signal?.addEventListener("abort", onAbort);
    });
  }

  /** Number of upstream watches open now (for tests and metrics). */
  get size(): number {
    return this.watches.size;
  }
}

const globalForHub = globalThis as typeof globalThis & { portcullisWatchHub?: WatchHub };

/** The process-wide hub (kept on globalThis so dev reloads do not open duplicate watches). */
export function watchHub(): WatchHub {
  globalForHub.portcullisWatchHub ??= new WatchHub();
  return globalForHub.portcullisWatchHub;
}
