/**
 * The soak's load, as browsers and apiservers make it: live streams (a Node client of /api/watch,
 * the EventSource protocol the pages use: `retry`, the `ping` heartbeat, `rv=` of what it holds
 * on a reconnection), signed-in users loading pages and reading the API at a steady rate, and
 * audit batches posted to the sink and retried until acknowledged (as the apiserver's webhook
 * backend does). Everything records what it saw for the report.
 */
import http from "node:http";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { STREAM_HEARTBEAT_MS } from "@/lib/api/streams";
import { policyHeaders } from "../../test/api-headers";
import { auditBatches } from "../../test/audit-batches";

/** A collection as a stream holds it: object key → resourceVersion. */
export type Collection = Map<string, string>;

interface KubeObjectLite {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

const keyOf = (o: KubeObjectLite) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** How long a stream may hear nothing, not even a heartbeat, before it is taken for dead. */
const SILENCE_MS = 3 * STREAM_HEARTBEAT_MS;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** User `i`'s own loopback address: 127.0.0.2 on (all of 127.0.0.0/8 is this machine on Linux). */
export function userAddress(i: number): string {
  const n = i + 2;
  return `127.0.${Math.floor(n / 254)}.${(n % 254) + 1}`;
}

/**
 * POSTs `body` to an http:// `url` from the local address `from` (fetch cannot choose it), and
 * answers as fetch would.
 */
export function postFrom(
  url: string,
  headers: Record<string, string>,
  body: string,
  from?: string,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, x);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: h }));
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** One browser tab's live stream of `refs` (refToString form) on one replica. */
export class LiveStream {
  readonly held = new Map<string, Collection>();
  private readonly rv = new Map<string, string>();
  connected = false;
  /** When it last connected or its collections last changed (it holds what it held since). */
  changedAt = 0;
  /** Successful (re)connections, SYNC snapshots received, ERROR messages received. */
  opens = 0;
  syncs = 0;
  errors = 0;
  /** Refused (re)connections by HTTP status ("net" when the connection failed). */
  readonly refused = new Map<string, number>();
  private stopped = false;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    readonly id: number,
    readonly base: () => string,
    private readonly cookie: string,
    readonly refs: string[],
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    await this.loop;
  }

  /** Whether it is connected and holds exactly `want` (collection → objects) now. */
  matches(want: Map<string, Collection>): boolean {
    if (!this.connected) return false;
    for (const [collection, objects] of want) {
      const have = this.held.get(collection);
      if (!have || have.size !== objects.size) return false;
      for (const [k, v] of objects) if (have.get(k) !== v) return false;
    }
    return true;
  }

  private url(): string {
    const q = [
      ...this.refs.map((r) => `r=${encodeURIComponent(r)}`),
      ...this.refs.map((r) => `rv=${encodeURIComponent(this.rv.get(r) ?? "")}`),
    ].join("&");
    return `${this.base()}/api/watch?${q}`;
  }

  private count(why: string): void {
    this.refused.set(why, (this.refused.get(why) ?? 0) + 1);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const ctl = new AbortController();
      this.abort = ctl;
      let silence: NodeJS.Timeout | undefined;
      const heard = () => {
        clearTimeout(silence);
        silence = setTimeout(() => ctl.abort(), SILENCE_MS);
      };
      try {
        heard();
        const res = await fetch(this.url(), {
          signal: ctl.signal,
          headers: {
            ...policyHeaders(SHARED_CONTEXT),
            cookie: this.cookie,
            accept: "text/event-stream",
          },
        });
        if (res.status !== 200 || !res.body) {
          this.count(String(res.status));
          await res.body?.cancel().catch(() => undefined);
        } else {
          const reader = res.body.getReader();
          const decoder = new TextDecoder();
          let buf = "";
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            heard();
            buf += decoder.decode(value, { stream: true });
            let end: number;
            while ((end = buf.indexOf("\n\n")) !== -1) {
              this.frame(buf.slice(0, end));
              buf = buf.slice(end + 2);
            }
          }
        }
      } catch {
        if (!this.stopped && !ctl.signal.aborted) this.count("net");
      } finally {
        clearTimeout(silence);
        this.connected = false;
      }
      // The server's `retry: 1000`, as EventSource waits before reconnecting.
      if (!this.stopped) await sleep(1000);
    }
  }

  private frame(frame: string): void {
    if (frame.includes(": connected")) {
      this.connected = true;
      this.opens++;
      this.changedAt = Date.now();
    }
    const data = frame
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6))
      .join("\n");
    if (!data || frame.includes("event: ping")) return;
    const msg = JSON.parse(data) as {
      collection: string;
      type: string;
      resourceVersion?: string;
      items?: KubeObjectLite[];
      object?: KubeObjectLite;
    };
    if (msg.type !== "CURRENT" && msg.type !== "ERROR") this.changedAt = Date.now();
    let held = this.held.get(msg.collection);
    if (!held) this.held.set(msg.collection, (held = new Map()));
    switch (msg.type) {
      case "SYNC":
        this.syncs++;
        held.clear();
        for (const o of msg.items ?? []) held.set(keyOf(o), o.metadata?.resourceVersion ?? "");
        if (msg.resourceVersion) this.rv.set(msg.collection, msg.resourceVersion);
        break;
      case "CURRENT":
        break;
      case "ADDED":
      case "MODIFIED":
        if (msg.object) {
          held.set(keyOf(msg.object), msg.object.metadata?.resourceVersion ?? "");
          if (msg.object.metadata?.resourceVersion)
            this.rv.set(msg.collection, msg.object.metadata.resourceVersion);
        }
        break;
      case "DELETED":
        if (msg.object) {
          held.delete(keyOf(msg.object));
          if (msg.object.metadata?.resourceVersion)
            this.rv.set(msg.collection, msg.object.metadata.resourceVersion);
        }
        break;
      case "ERROR":
        this.errors++;
        break;
    }
  }
}

/** One answer a user got: when, what, how long, and the message of a 5xx. */
export interface Answer {
  at: number;
  kind: "page" | "api";
  replica: string;
  path: string;
  status: number;
  ms: number;
  message?: string;
}

/** A signed-in user loading pages and reading the API, one request every `intervalMs`. */
export class User {
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly replicas: Array<{ name: string; url: () => string }>,
    private readonly cookie: string,
    private readonly intervalMs: number,
    private readonly pages: string[],
    private readonly apis: string[],
    private readonly record: (a: Answer) => void,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    // Spread over the interval, so the users do not all ask at once.
    await sleep(Math.random() * this.intervalMs);
    let n = 0;
    while (!this.stopped) {
      const started = Date.now();
      // Pages and API reads alternate, and each pair goes to the next replica: both kinds reach
      // every replica the session is good on.
      const replica = this.replicas[
        Math.floor(n / 2) % this.replicas.length
      ] as (typeof this.replicas)[number];
      const isPage = n % 2 === 0;
      const list = isPage ? this.pages : this.apis;
      const p = list[Math.floor(n / 2) % list.length] as string;
      n++;
      let status = 0;
      let message: string | undefined;
      try {
        const res = await fetch(`${replica.url()}${p}`, {
          redirect: "manual",
          signal: AbortSignal.timeout(60_000),
          headers: isPage
            ? { cookie: this.cookie, "sec-fetch-site": "none", "sec-fetch-mode": "navigate" }
            : { ...policyHeaders(SHARED_CONTEXT), cookie: this.cookie },
        });
        status = res.status;
        const body = await res.text();
        if (status >= 500) message = messageOf(body);
      } catch (e) {
        message =
          e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      }
      this.record({
        at: started,
        kind: isPage ? "page" : "api",
        replica: replica.name,
        path: p,
        status,
        ms: Date.now() - started,
        ...(message !== undefined ? { message } : {}),
      });
      await sleep(Math.max(0, this.intervalMs - (Date.now() - started)));
    }
  }
}

function messageOf(body: string): string {
  try {
    const m = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof m === "string") return m;
  } catch {
    // an HTML page
  }
  return body
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
}

/** Where the sender posts batches: a replica and which store it writes to. */
export interface SinkTarget {
  name: string;
  store: "postgres" | "sqlite";
  url: () => string;
}

/**
 * Audit batches at `eventsPerSecond`, `batchSize` events each, to the targets in turn; each batch is
 * retried (to the same target, as the apiserver does) until a 200, with `maxInFlight` outstanding.
 * Every auditID starts with `prefix`.
 */
export class AuditSender {
  /** Events acknowledged, by store. */
  readonly acked = { postgres: 0, sqlite: 0 };
  /** Refused tries by status ("net" for a failed connection), and 5xx tries' messages. */
  readonly refusals = new Map<string, number>();
  readonly messages = new Map<string, number>();
  readonly refusedAt: Array<{ at: number; target: string; status: string }> = [];
  generated = 0;
  private stopped = false;
  private readonly queue: Array<{ body: string; target: SinkTarget; events: number }> = [];
  private inFlight = 0;
  private loop: Promise<void> | undefined;
  private readonly template: Array<Record<string, unknown>>;
  private batchNo = 0;
  startedAt = 0;
  stoppedAt = 0;

  constructor(
    private readonly targets: SinkTarget[],
    private readonly token: string,
    readonly prefix: string,
    private readonly eventsPerSecond: number,
    private readonly batchSize: number,
    private readonly maxInFlight: number,
  ) {
    const [one] = auditBatches("soak", "soak", 1, batchSize);
    this.template = (JSON.parse(one ?? "{}") as { items: Array<Record<string, unknown>> }).items;
  }

  /** Events waiting to be sent or retried. */
  backlog(): number {
    return this.queue.reduce((n, b) => n + b.events, 0);
  }

  start(): void {
    this.startedAt = Date.now();
    this.loop = this.run();
  }

  /** Stops making batches (what was made is still sent). */
  stopGenerating(): void {
    this.stopped = true;
    this.stoppedAt = Date.now();
  }

  /** Waits until every batch made is acknowledged, or `ms` pass; returns whether all were. */
  async drain(ms: number): Promise<boolean> {
    await this.loop;
    const deadline = Date.now() + ms;
    while ((this.queue.length > 0 || this.inFlight > 0) && Date.now() < deadline) await sleep(100);
    return this.queue.length === 0 && this.inFlight === 0;
  }

  private makeBatch(target: SinkTarget): { body: string; target: SinkTarget; events: number } {
    const b = this.batchNo++;
    const now = new Date().toISOString();
    const items = this.template.map((e, i) => ({
      ...e,
      auditID: `${this.prefix}${b}-${i}`,
      requestReceivedTimestamp: now,
      stageTimestamp: now,
      user: { username: `${this.prefix}user`, groups: ["system:authenticated"] },
    }));
    return {
      body: JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items }),
      target,
      events: items.length,
    };
  }

  private async run(): Promise<void> {
    const tick = 100;
    let owed = 0;
    let t = 0;
    while (!this.stopped) {
      owed += (this.eventsPerSecond * tick) / 1000;
      while (owed >= this.batchSize) {
        owed -= this.batchSize;
        const target = this.targets[t++ % this.targets.length] as SinkTarget;
        this.queue.push(this.makeBatch(target));
        this.generated += this.batchSize;
      }
      this.pump();
      await sleep(tick);
    }
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.shift() as (typeof this.queue)[number];
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async send(batch: { body: string; target: SinkTarget; events: number }): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let status = "net";
      try {
        const res = await fetch(`${batch.target.url()}/api/audit`, {
          method: "POST",
          signal: AbortSignal.timeout(30_000),
          headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
          body: batch.body,
        });
        const text = await res.text();
        status = String(res.status);
        if (res.status === 200) {
          this.acked[batch.target.store] += batch.events;
          return;
        }
        if (res.status >= 500) {
          const m = `${res.status} ${messageOf(text)}`;
          this.messages.set(m, (this.messages.get(m) ?? 0) + 1);
        }
      } catch {
        // connection refused or reset: the replica is down
      }
      this.refusals.set(status, (this.refusals.get(status) ?? 0) + 1);
      this.refusedAt.push({ at: Date.now(), target: batch.target.name, status });
      // The apiserver's backoff starts at 2 s here (--audit-webhook-initial-backoff); it gives
      // up after a few tries, this sender never does (0 lost is what is measured).
      await sleep(Math.min(1000 * 1.5 ** attempt, 5000));
    }
  }
}
