/**
 * The change history of the admission objects the apiserver loads from static manifest files
 * (PORTCULLIS_ADMISSION_MANIFESTS): each time the watcher reads a directory anew, what appeared,
 * changed or disappeared since the last stored change of each object is recorded, attributed to
 * "manifest <file>" (lib/admission/history/manifest-changes says how they are keyed).
 *
 * Started with the watch's recording (the first read of the history in this process) and kept
 * for as long as the process runs; a restart compares the files with what is stored.
 */
import "server-only";
import { manifestChanges, type ManifestEntry } from "@/lib/admission/history/manifest-changes";
import {
  manifestWatcherFromEnv,
  type ManifestSetState,
  type ManifestWatcher,
} from "@/server/kube/admission-manifests";
import { historyStore, pruneHistorySoon } from "./instance";

const KEY = Symbol.for("portcullis.history.manifests");
const g = globalThis as { [KEY]?: WeakMap<ManifestWatcher, ManifestRecording> };

interface ManifestRecording {
  /** Resolves once every state the watcher reported so far is stored. */
  settled: () => Promise<unknown>;
}

function entriesOf(s: ManifestSetState): ManifestEntry[] {
  return s.dirs.flatMap((d) =>
    d.objects.map((o) => ({
      kind: o.kind,
      name: o.name,
      file: o.file,
      object: o.object as Record<string, unknown>,
    })),
  );
}

/**
 * Records `watcher`'s objects now and on every change from now on (once per watcher); resolves
 * once the current files are stored. Without a watcher (no manifest directory named), nothing.
 */
export function recordManifests(
  watcher: ManifestWatcher | undefined = manifestWatcherFromEnv(),
): Promise<unknown> {
  if (!watcher) return Promise.resolve();
  const all = (g[KEY] ??= new WeakMap());
  let rec = all.get(watcher);
  if (!rec) {
    let queue: Promise<unknown> = Promise.resolve();
    const push = (s: ManifestSetState) => {
      queue = queue
        .then(async () => {
          const store = await historyStore();
          const drafts = manifestChanges(entriesOf(s), await store.manifestHeads(), Date.now());
          if (drafts.length === 0) return;
          await store.record(drafts);
          pruneHistorySoon(store);
        })
        .catch((e: unknown) =>
          console.warn(
            `portcullis: change history of manifests: ${e instanceof Error ? e.message : String(e)}`,
          ),
        );
    };
    watcher.subscribe(push);
    push(watcher.state());
    rec = { settled: () => queue };
    all.set(watcher, rec);
  }
  return rec.settled();
}
