import "server-only";
import {
  FightDetector,
  type ReconcileFight,
  type Recreation,
} from "@/lib/admission/provenance/fights";
import type { ManagedObject } from "@/lib/admission/provenance/provenance";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { collectionPath, type ResourceRef } from "@/lib/k8s/resources";
import { servesCollection } from "@/server/kube/served-collections";
import { watchHub, type HubEvent } from "@/server/kube/watch-hub";

/**
 * The admission kinds watched for fights, with the kind each collection holds and the versions it
 * may be served at, preferred first: the first one discovery says the cluster serves is watched
 * (the same collection path the pages' live streams use, so the watch hub shares one upstream
 * watch). MutatingAdmissionPolicy is v1 since 1.36, v1beta1 since 1.34 and v1alpha1 since 1.32
 * (behind the MutatingAdmissionPolicy feature gate before 1.36).
 */
const WATCHED: ReadonlyArray<{ resource: string; kind: string; versions: readonly string[] }> = [
  { resource: "mutatingwebhookconfigurations", kind: "MutatingWebhookConfiguration" },
  { resource: "validatingwebhookconfigurations", kind: "ValidatingWebhookConfiguration" },
  { resource: "validatingadmissionpolicies", kind: "ValidatingAdmissionPolicy" },
  { resource: "validatingadmissionpolicybindings", kind: "ValidatingAdmissionPolicyBinding" },
  { resource: "mutatingadmissionpolicies", kind: "MutatingAdmissionPolicy" },
  { resource: "mutatingadmissionpolicybindings", kind: "MutatingAdmissionPolicyBinding" },
].map((w) => ({
  ...w,
  versions:
    w.kind.startsWith("Mutating") && w.kind.includes("Policy")
      ? ["v1", "v1beta1", "v1alpha1"]
      : ["v1"],
}));

/** The first version of `resource` the cluster serves with list and watch (undefined: none). */
async function servedRef(
  context: string,
  resource: string,
  versions: readonly string[],
): Promise<ResourceRef | undefined> {
  for (const version of versions) {
    const ref = { group: ADMISSION_GROUP, version, resource };
    if (await servesCollection(context, ref)) return ref;
  }
  return undefined;
}

/**
 * A monitor nobody has read for this long stops watching (PORTCULLIS_FIGHTS_IDLE_MS); the next
 * read starts it again, from the objects as they are then.
 */
const IDLE_MS =
  Number(process.env["PORTCULLIS_FIGHTS_IDLE_MS"]) > 0
    ? Number(process.env["PORTCULLIS_FIGHTS_IDLE_MS"])
    : 60 * 60_000;

/**
 * One context's fight detector, fed by the watch hub's shared watches of the admission kinds
 * (the same upstream watches the pages' live streams use: no watch of its own).
 */
class FightMonitor {
  readonly detector = new FightDetector();
  readonly since = new Date().toISOString();
  private readonly unsubscribes: Array<() => void> = [];
  private idle: NodeJS.Timeout | undefined;
  private kept = false;
  private readonly started: Promise<void>;

  constructor(
    private readonly context: string,
    private readonly onStop: () => void,
  ) {
    this.started = this.start();
    this.touch();
  }

  /**
   * Subscribes to each served collection; resolves once each has sent its first snapshot. When
   * discovery could not be read the monitor stops, so the next read starts it again.
   */
  private async start(): Promise<void> {
    let unread = false;
    const refs = await Promise.all(
      WATCHED.map((w) =>
        servedRef(this.context, w.resource, w.versions).catch(() => {
          unread = true;
          return undefined;
        }),
      ),
    );
    await Promise.all(
      WATCHED.map((w, i) => ({ kind: w.kind, ref: refs[i] })).flatMap(({ kind, ref }) =>
        ref
          ? [
              new Promise<void>((resolve) => {
                this.unsubscribes.push(
                  watchHub().subscribe(this.context, collectionPath(ref), (e) => {
                    this.apply(kind, e);
                    if (e.type === "SYNC" || e.type === "ERROR") resolve();
                  }),
                );
              }),
            ]
          : [],
      ),
    );
    if (unread) this.stop();
  }

  private apply(kind: string, e: HubEvent): void {
    const now = Date.now();
    if (e.type === "SYNC") {
      for (const item of e.items) this.detector.observe(kind, item as ManagedObject, now);
    } else if (e.type === "ADDED" || e.type === "MODIFIED") {
      this.detector.observe(kind, e.object as ManagedObject, now);
    } else if (e.type === "DELETED") {
      this.detector.forget(kind, e.object.metadata?.name ?? "", now);
    }
  }

  /** Keeps watching however long nobody reads (the monitor started with the server). */
  keep(): void {
    this.kept = true;
    clearTimeout(this.idle);
  }

  touch(): void {
    clearTimeout(this.idle);
    if (this.kept) return;
    this.idle = setTimeout(() => this.stop(), IDLE_MS);
    this.idle.unref?.();
  }

  ready(): Promise<void> {
    return this.started;
  }

  private stop(): void {
    clearTimeout(this.idle);
    for (const u of this.unsubscribes.splice(0)) u();
    this.onStop();
  }
}

const globalForMonitors = globalThis as typeof globalThis & {
  portcullisFightMonitors?: Map<string, FightMonitor>;
};
const monitors = (globalForMonitors.portcullisFightMonitors ??= new Map());

/**
 * Starts watching `context` for fights, when it is not watched yet; resolves once the watches hold
 * the objects (every change after that is seen).
 */
async function watchForFights(context: string): Promise<FightMonitor> {
  let m = monitors.get(context);
  if (!m) {
    const made: FightMonitor = new FightMonitor(context, () => {
      if (monitors.get(context) === made) monitors.delete(context);
    });
    monitors.set(context, made);
    m = made;
  }
  m.touch();
  await m.ready();
  return m;
}

/**
 * Starts watching the local context for fights when the server starts (instrumentation.ts), so a
 * fight that happens before anyone opens a page is caught; that monitor never stops for being
 * idle. Its watches are the watch hub's shared ones: the pages' live streams reuse them.
 */
export async function watchForFightsFromStart(context: string): Promise<void> {
  const m = await watchForFights(context);
  // Stopped at once (discovery unreadable): the first read of the fights starts it again.
  if (monitors.get(context) === m) m.keep();
}

/** The reconcile fights seen on `context` (watching it from now on when it was not). */
export async function fightsOf(
  context: string,
): Promise<{ since: string; fights: ReconcileFight[]; recreations: Recreation[] }> {
  const m = await watchForFights(context);
  const now = Date.now();
  return {
    since: m.since,
    fights: m.detector.fights(now),
    recreations: m.detector.recreations(now),
  };
}
