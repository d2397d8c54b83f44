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

/** The admission kinds watched for fights, with the kind each collection holds. */
const WATCHED: ReadonlyArray<{ ref: ResourceRef; kind: string }> = [
  ["mutatingwebhookconfigurations", "MutatingWebhookConfiguration"],
  ["validatingwebhookconfigurations", "ValidatingWebhookConfiguration"],
  ["validatingadmissionpolicies", "ValidatingAdmissionPolicy"],
  ["validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding"],
].map(([resource, kind]) => ({
  ref: { group: ADMISSION_GROUP, version: "v1", resource: resource! },
  kind: kind!,
}));

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
  private readonly started: Promise<void>;

  constructor(
    private readonly context: string,
    private readonly onStop: () => void,
  ) {
    this.started = this.start();
    this.touch();
  }

  /** Subscribes to each served collection; resolves once each has sent its first snapshot. */
  private async start(): Promise<void> {
    const served = await Promise.all(
      WATCHED.map((w) => servesCollection(this.context, w.ref).catch(() => false)),
    );
    await Promise.all(
      WATCHED.filter((_, i) => served[i]).map(
        (w) =>
          new Promise<void>((resolve) => {
            this.unsubscribes.push(
              watchHub().subscribe(this.context, collectionPath(w.ref), (e) => {
                this.apply(w.kind, e);
                if (e.type === "SYNC" || e.type === "ERROR") resolve();
              }),
            );
          }),
      ),
    );
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

  touch(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(), IDLE_MS);
    this.idle.unref?.();
  }

  ready(): Promise<void> {
    return this.started;
  }

  private stop(): void {
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
    m = new FightMonitor(context, () => monitors.delete(context));
    monitors.set(context, m);
  }
  m.touch();
  await m.ready();
  return m;
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
