import "server-only";
import { open, readdir, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { parseAuditEvent, type ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { AuditLineSplitter } from "@/lib/admission/audit/audit-lines";
import {
  changesOfAuditEvent,
  mayHoldChanges,
  type ChangeDraft,
} from "@/lib/admission/history/changes";
import type { LogCursor } from "@/server/decisions/store/types";
import type { FollowerStats } from "@/lib/api/test-hooks";

/** What the follower needs of storage: its saved cursor, and events stored with the new one. */
interface FollowerSink {
  cursor(name: string): Promise<LogCursor | undefined>;
  /**
   * Stores the events and the cursor in one transaction; throws when nothing was stored. The
   * changes of admission objects the same lines record come along (stored first: a replay after
   * a crash between the two records them again, and the history keeps a change once).
   */
  store(events: ParsedAuditEvent[], cursor: LogCursor, changes?: ChangeDraft[]): Promise<void>;
}

export interface FollowerOptions {
  /** The audit log the apiserver writes (`--audit-log-path`). */
  file: string;
  sink: FollowerSink;
  /** How often the file is checked for appends and rotation when idle. */
  pollMs?: number;
  /** Lines longer than this are skipped (counted). */
  maxLineBytes?: number;
  /** Bytes read at a time (one transaction stores what one read completes). */
  chunkBytes?: number;
  /** Told about each skipped line or storage failure (rate-limited by the caller if it wants). */
  onError?: (message: string) => void;
}

interface Identity {
  dev: string;
  ino: string;
}

interface Source extends Identity {
  handle: FileHandle;
  /** The name it was opened by. */
  name: string;
  /** A rotated file: read to its end, then move on (it gets no more writes). */
  finished: boolean;
  splitter: AuditLineSplitter;
  /** Offset of the next read. */
  readAt: number;
}

const DEFAULT_MAX_LINE = 4 * 1024 * 1024;
const DEFAULT_CHUNK = 1024 * 1024;

async function identityOf(file: string): Promise<(Identity & { size: number }) | undefined> {
  try {
    const s = await stat(file, { bigint: true });
    return { dev: String(s.dev), ino: String(s.ino), size: Number(s.size) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

function same(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A line of the apiserver's legacy audit log format (`--audit-log-format=legacy`): a timestamp,
 * then ` AUDIT: ` and key="value" pairs, e.g. `2017-03-21T03:57:09.106841886-04:00 AUDIT:
 * id="c939d2a7-…" stage="RequestReceived" ip="127.0.0.1" method="get" …`.
 */
const LEGACY_LINE = /^\S+ AUDIT: /;

/** What a rotation puts between the log's name (or its stem) and the rest: a number or a date. */
const ROTATION_MARK = /^[-.]\d[\dT:.-]*$/;

/**
 * Whether `entry`, in the log's directory, is a rotated copy of the log named `base`, not another
 * file that merely starts alike (the audit policy, the sink's token, another log): the
 * apiserver's own rotation (`audit-2026-11-23T10-00-00.000.log`, `<stem>-<time><ext>`),
 * logrotate's numbered (`audit.log.1`) and dated (`audit.log-20261123`, or `audit-20261123.log`
 * with its `extension` option) copies. Compressed copies are not read.
 */
export function isRotatedName(base: string, entry: string): boolean {
  if (entry === base || /\.(gz|bz2|xz|zst|lz4|z)$/i.test(entry)) return false;
  if (entry.startsWith(base) && ROTATION_MARK.test(entry.slice(base.length))) return true;
  const ext = path.extname(base);
  const stem = base.slice(0, base.length - ext.length);
  return (
    ext !== "" &&
    entry.length > base.length &&
    entry.startsWith(stem) &&
    entry.endsWith(ext) &&
    ROTATION_MARK.test(entry.slice(stem.length, entry.length - ext.length))
  );
}

/**
 * Follows an apiserver audit log (JSON lines): appends as they are written, rotation by rename
 * (the apiserver's own, `<name>-<timestamp>.<ext>`, or logrotate's `<name>.1`: the old file is
 * finished before the new one is read) and by copytruncate (the offset goes back to 0). The
 * offset of the last complete line is stored with the events read before it, so a restart
 * resumes there — in a rotated file when the log was rotated meanwhile. Events already stored
 * are skipped by the store, which keeps any overlap harmless.
 */
export class AuditLogFollower {
  private readonly pollMs: number;
  private readonly maxLineBytes: number;
  private readonly chunk: Buffer;
  private source?: Source;
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly waiters = new Set<() => void>();
  readonly stats: FollowerStats;

  constructor(private readonly opts: FollowerOptions) {
    this.pollMs = opts.pollMs ?? 250;
    this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE;
    this.chunk = Buffer.alloc(opts.chunkBytes ?? DEFAULT_CHUNK);
    this.stats = {
      file: opts.file,
      offset: 0,
      steps: 0,
      lines: 0,
      events: 0,
      rotations: 0,
      truncations: 0,
      skipped: { notJson: 0, oversized: 0, partial: 0 },
      storeFailures: 0,
    };
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the step in progress; the next start resumes from the stored cursor. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.source?.handle.close().catch(() => undefined);
    this.source = undefined;
  }

  /** Checks the file now instead of at the end of the idle wait (a no-op while it reads). */
  poke(): void {
    this.wake?.();
  }

  /**
   * Resolves with the stats once `reached(stats)` holds, checked now and after every step; with
   * undefined when `signal` aborts first. What a test waits on instead of a clock: "the live log
   * read to the size it had after my last request".
   */
  until(
    reached: (stats: FollowerStats) => boolean,
    signal?: AbortSignal,
  ): Promise<FollowerStats | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        if (reached(this.stats)) done(this.stats);
      };
      const done = (value: FollowerStats | undefined) => {
        this.waiters.delete(check);
        signal?.removeEventListener("abort", aborted);
        resolve(value);
      };
      const aborted = () => done(undefined);
      if (signal?.aborted) return done(undefined);
      signal?.addEventListener("abort", aborted, { once: true });
      this.waiters.add(check);
      check();
    });
  }

  private progressed(): void {
    this.stats.steps++;
    for (const check of [...this.waiters]) check();
  }

  private error(message: string): void {
    this.stats.lastError = message;
    this.opts.onError?.(message);
  }

  private async run(): Promise<void> {
    let first = true;
    while (!this.stopped) {
      let progressed = false;
      try {
        if (first) {
          await this.resume();
          first = false;
        }
        progressed = await this.step();
      } catch (e) {
        this.stats.storeFailures++;
        this.error(`audit log ${this.opts.file}: ${e instanceof Error ? e.message : String(e)}`);
        // Storage or the file failed: drop what was read after the stored cursor and try again.
        await this.reset();
        first = true;
      }
      this.progressed();
      if (!progressed && !this.stopped) {
        await new Promise<void>((r) => {
          this.wake = r;
          setTimeout(r, this.pollMs);
        });
        this.wake = undefined;
      }
    }
  }

  private async reset(): Promise<void> {
    await this.source?.handle.close().catch(() => undefined);
    this.source = undefined;
    await sleep(this.pollMs);
  }

  private async openSource(name: string, offset: number, finished: boolean): Promise<boolean> {
    let handle: FileHandle;
    try {
      handle = await open(name, "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw e;
    }
    const s = await handle.stat({ bigint: true });
    const start = offset <= Number(s.size) ? offset : 0;
    this.source = {
      handle,
      name,
      dev: String(s.dev),
      ino: String(s.ino),
      finished,
      splitter: new AuditLineSplitter(this.maxLineBytes, start),
      readAt: start,
    };
    this.stats.reading = name;
    this.stats.readingId = { dev: String(s.dev), ino: String(s.ino) };
    this.stats.offset = start;
    return true;
  }

  /** Rotated siblings of the log (see isRotatedName), oldest first. */
  private async rotated(): Promise<Array<{ name: string; id: Identity; mtime: number }>> {
    const dir = path.dirname(this.opts.file);
    const base = path.basename(this.opts.file);
    const out: Array<{ name: string; id: Identity; mtime: number }> = [];
    for (const entry of await readdir(dir)) {
      if (!isRotatedName(base, entry)) continue;
      const name = path.join(dir, entry);
      try {
        const s = await stat(name, { bigint: true });
        if (!s.isFile()) continue;
        out.push({
          name,
          id: { dev: String(s.dev), ino: String(s.ino) },
          mtime: Number(s.mtimeMs),
        });
      } catch {
        // removed meanwhile (the apiserver prunes old backups)
      }
    }
    return out.sort(
      (a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  }

  /** Finds where the stored cursor points: the live log, a rotated one, or nowhere (start over). */
  private async resume(): Promise<void> {
    const cursor = await this.opts.sink.cursor(this.opts.file);
    const live = await identityOf(this.opts.file);
    if (cursor && live && same(cursor, live)) {
      if (cursor.offset > live.size) this.stats.truncations++;
      await this.openSource(this.opts.file, cursor.offset, false);
      return;
    }
    if (cursor) {
      const rotated = await this.rotated();
      const found = rotated.find((r) => same(r.id, cursor));
      // Newer rotated files (the log rotated more than once meanwhile) come next: see next().
      if (found && (await this.openSource(found.name, cursor.offset, true))) return;
    }
    // Never read, or its file is gone: the live log from its start (stored events are skipped).
    if (live) await this.openSource(this.opts.file, 0, false);
  }

  /** Reads what is there; returns whether anything was read or a file was switched. */
  private async step(): Promise<boolean> {
    const src = this.source;
    if (!src) {
      await this.resume();
      return this.source !== undefined;
    }
    const { bytesRead } = await src.handle.read(this.chunk, 0, this.chunk.length, src.readAt);
    if (bytesRead > 0) {
      src.readAt += bytesRead;
      const { lines, oversized } = src.splitter.push(this.chunk.subarray(0, bytesRead));
      if (oversized > 0) {
        this.stats.skipped.oversized += oversized;
        this.error(
          `audit log ${src.name}: skipped ${oversized} line(s) longer than ${this.maxLineBytes} bytes`,
        );
      }
      const events: ParsedAuditEvent[] = [];
      const changes: ChangeDraft[] = [];
      for (const line of lines) {
        this.stats.lines++;
        let value: unknown;
        try {
          value = JSON.parse(line.text);
        } catch {
          this.stats.skipped.notJson++;
          this.error(
            `audit log ${src.name}: skipped a line that is not JSON, ending at byte ${line.end}${LEGACY_LINE.test(line.text) ? ` (the apiserver writes the legacy text format: start it with --audit-log-format=json, the default)` : ""}`,
          );
          continue;
        }
        const p = parseAuditEvent(value, line.text);
        if (p && p.decisions.length > 0) events.push(p);
        if (mayHoldChanges(line.text)) changes.push(...changesOfAuditEvent(value));
      }
      const offset = src.splitter.committed;
      if (lines.length > 0 || oversized > 0) {
        await this.opts.sink.store(
          events,
          { name: this.opts.file, dev: src.dev, ino: src.ino, offset },
          changes,
        );
        this.stats.events += events.length;
        this.stats.offset = offset;
      }
      return true;
    }
    // At the end of what is written: has the file been rotated or truncated?
    if (src.finished) return this.next(src);
    const live = await identityOf(this.opts.file);
    if (live && !same(live, src)) {
      // Renamed away. Writes to it may have landed after the read above: read it to its end first.
      src.finished = true;
      this.stats.rotations++;
      return true;
    }
    if (live && live.size < src.readAt) {
      this.stats.truncations++;
      src.splitter = new AuditLineSplitter(this.maxLineBytes, 0);
      src.readAt = 0;
      await this.opts.sink.store([], {
        name: this.opts.file,
        dev: src.dev,
        ino: src.ino,
        offset: 0,
      });
      this.stats.offset = 0;
      return true;
    }
    return false;
  }

  /**
   * A finished (rotated) file is read to its end: go on with the next rotated one, or the live
   * log. The rotated files are listed afresh each time, not once at resume: the log may rotate
   * again (and again) while older files are still being read, and each of those is read in turn.
   */
  private async next(src: Source): Promise<boolean> {
    if (src.splitter.partialBytes > 0) {
      this.stats.skipped.partial++;
      this.error(`audit log ${src.name}: its last line was cut short when it was rotated; skipped`);
    }
    const finishedAt = Number((await src.handle.stat({ bigint: true })).mtimeMs);
    await src.handle.close().catch(() => undefined);
    this.source = undefined;
    const live = await identityOf(this.opts.file);
    const rotated = (await this.rotated()).filter((r) => !live || !same(r.id, live));
    const at = rotated.findIndex((r) => same(r.id, src));
    // Newer than the one just finished: after it in the listing, or (when the apiserver has
    // pruned it meanwhile) written later.
    const newer = at !== -1 ? rotated.slice(at + 1) : rotated.filter((r) => r.mtime > finishedAt);
    for (const r of newer) {
      if (await this.openSource(r.name, 0, true)) return this.markStart();
    }
    if (!(await this.openSource(this.opts.file, 0, false))) return false;
    return this.markStart();
  }

  /** Stores the cursor at the start of the file just opened, so a restart resumes in it. */
  private async markStart(): Promise<boolean> {
    const s = this.source;
    if (s)
      await this.opts.sink.store([], { name: this.opts.file, dev: s.dev, ino: s.ino, offset: 0 });
    return true;
  }
}
