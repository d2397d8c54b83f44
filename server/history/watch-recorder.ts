/**
 * The change history where the audit sink is not connected: the watch hub's shared watches of
 * the admission kinds (the same upstream watches the pages' live streams use), each change kept
 * without an actor ("actor unknown (from watch)"). Where audit is connected too, the audit record
 * of the same write (same uid and resourceVersion) completes the watch's with its actor.
 *
 * A context is watched from the first read of its history in this process on (as the reconcile
 * fights are), and then for as long as the process runs. The watch's first list is kept as
 * `observed` versions (skipped when that version is stored already), so a change made while no
 * dashboard watched still diffs against the version before it.
 */
import "server-only";
import { changeOfWatchEvent, type ChangeDraft } from "@/lib/admission/history/changes";
import {
  HISTORY_GROUP,
  HISTORY_KINDS,
  HISTORY_RESOURCES,
  servedVersions,
} from "@/lib/admission/history/kinds";
import { collectionPath, type ResourceRef } from "@/lib/k8s/resources";
import { servesCollection } from "@/server/kube/served-collections";
import { watchHub, type HubEvent } from "@/server/kube/watch-hub";
import { recordChanges } from "./ingest";

const g = globalThis as typeof globalThis & {
  portcullisHistoryWatches?: Map<string, Promise<void>>;
};
const watched = (g.portcullisHistoryWatches ??= new Map());

/** Changes of one event, in order; stored one batch after another (never two at once). */
class Recorder {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(private readonly context: string) {}
  push(drafts: ChangeDraft[]): void {
    if (drafts.length === 0) return;
    const seenThrough = drafts.map((d) => ({ ...d, context: this.context }));
    this.queue = this.queue
      .then(() => recordChanges(seenThrough))
      .catch((e: unknown) =>
        console.warn(`portcullis: change history: ${e instanceof Error ? e.message : String(e)}`),
      );
  }
  settled(): Promise<unknown> {
    return this.queue;
  }
}

const recorders = new Map<string, Recorder>();

/**
 * What a write to the object itself moves: its generation (the spec), labels and annotations. A
 * MODIFIED event that moves none of them is a status write (the policy controller's type
 * checking): not a change of configuration, and the audit sink leaves those out too.
 */
function configurationKey(o: Record<string, unknown>): string {
  const m = (o.metadata ?? {}) as Record<string, unknown>;
  return JSON.stringify([m.generation ?? null, m.labels ?? null, m.annotations ?? null]);
}

async function servedRef(context: string, resource: string, versions: readonly string[]) {
  for (const version of versions) {
    const ref: ResourceRef = { group: HISTORY_GROUP, version, resource };
    if (await servesCollection(context, ref)) return ref;
  }
  return undefined;
}

/**
 * Starts recording `context`'s admission objects from the watch when not yet; resolves once each
 * served kind's first list is stored (every change after that is seen).
 */
export function watchHistory(context: string): Promise<void> {
  let started = watched.get(context);
  if (!started) {
    const recorder = new Recorder(context);
    recorders.set(context, recorder);
    /** The configuration key last seen of each object, by uid. */
    const seen = new Map<string, string>();
    const note = (o: Record<string, unknown>): boolean => {
      const uid = String((o.metadata as { uid?: unknown } | undefined)?.uid ?? "");
      const key = configurationKey(o);
      const same = seen.get(uid) === key;
      seen.set(uid, key);
      return !same;
    };
    started = (async () => {
      const refs = await Promise.all(
        HISTORY_KINDS.map((k) => servedRef(context, HISTORY_RESOURCES[k], servedVersions(k))),
      );
      await Promise.all(
        HISTORY_KINDS.flatMap((kind, i) => {
          const ref = refs[i];
          if (!ref) return [];
          return [
            new Promise<void>((resolve) => {
              watchHub().subscribe(context, collectionPath(ref), (e: HubEvent) => {
                const now = Date.now();
                if (e.type === "SYNC") {
                  recorder.push(
                    e.items.flatMap((o) => {
                      note(o);
                      const d = changeOfWatchEvent(kind, "SYNC", o, now);
                      return d ? [d] : [];
                    }),
                  );
                  void recorder.settled().then(() => resolve());
                } else if (e.type === "ERROR") {
                  resolve();
                } else {
                  if (e.type === "DELETED") seen.delete(String(e.object.metadata?.uid ?? ""));
                  else if (!note(e.object) && e.type === "MODIFIED") return;
                  const d = changeOfWatchEvent(kind, e.type, e.object, now);
                  if (d) recorder.push([d]);
                }
              });
            }),
          ];
        }),
      );
    })();
    watched.set(context, started);
    // Discovery could not be read: the next read tries again.
    started.catch(() => watched.delete(context));
  }
  return started;
}

/** Resolves once what the watch has delivered on `context` so far is stored (tests wait on it). */
export function watchRecorded(context: string): Promise<unknown> {
  return recorders.get(context)?.settled() ?? Promise.resolve();
}
