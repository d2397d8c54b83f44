/**
 * Where the machine's CPU went during the soak's load: CPU time by part (the harness, each
 * replica, the apiserver, etcd, PostgreSQL, Chromium, the rest), from /proc, as a share of one
 * core, and how busy the whole machine was. A figure that misses its target on a saturated
 * machine says so here.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** One process's line of /proc/<pid>/stat: what the account needs. */
export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
  /** Start time after boot, in clock ticks: with the pid, names the process across pid reuse. */
  start: number;
}

/**
 * Parses /proc/<pid>/stat. The command name sits in parentheses and may hold spaces and
 * parentheses itself, so the fields are counted from the last ")".
 */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // Fields after the name, from field 3 (state): ppid is field 4, utime 14, stime 15, starttime 22.
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const field = (n: number) => Number(rest[n - 3]);
  const [ppid, utime, stime, start] = [field(4), field(14), field(15), field(22)];
  if (![pid, ppid, utime, stime, start].every(Number.isFinite)) return undefined;
  return { pid, comm: text.slice(open + 1, close), ppid, ticks: utime + stime, start };
}

/** The machine's busy and total clock ticks over all cores, from /proc/stat's `cpu` line. */
export function parseMachine(text: string): { busy: number; total: number } | undefined {
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) return undefined;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  if (v.length < 5 || !v.every(Number.isFinite)) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is inside user and nice).
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * The part a process belongs to: `named` picks parts by pid (a replica, the harness), and their
 * descendants belong to them; the control plane's and the databases' own processes go by name
 * first, as the harness starts them.
 */
export function partOf(
  p: ProcStat,
  all: ReadonlyMap<number, ProcStat>,
  named: ReadonlyMap<number, string>,
): string {
  if (p.comm === "kube-apiserver") return "kube-apiserver";
  if (p.comm === "etcd") return "etcd";
  if (p.comm.startsWith("kube-controller")) return "kube-controller-manager";
  if (p.comm === "postgres") return "postgres";
  if (/^chrom/i.test(p.comm)) return "chromium";
  for (let q: ProcStat | undefined = p, hops = 0; q && hops < 64; hops++) {
    const name = named.get(q.pid);
    if (name) return name;
    q = all.get(q.ppid);
  }
  return "other";
}

function readProcesses(): Map<number, ProcStat> {
  const all = new Map<number, ProcStat>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = parseStat(readFileSync(`/proc/${d}/stat`, "utf8"));
      if (st) all.set(st.pid, st);
    } catch {
      // gone between the listing and the read
    }
  }
  return all;
}

export interface CpuShares {
  seconds: number;
  /** Share of one core by part, largest first (100 is one core busy the whole time). */
  parts: Array<{ part: string; pct: number }>;
  /** The whole machine's busy share (100 is every core busy). */
  machineBusyPct: number;
  cores: number;
}

/**
 * Accumulates CPU time by part between `start()` and `shares()`, sampled with `sample()` (a
 * process that ends between two samples loses what it used since the last one).
 */
export class CpuAccount {
  private readonly hz = clockTicksPerSecond();
  private readonly first = new Map<string, number>();
  private readonly last = new Map<string, { ticks: number; part: string }>();
  private machineFirst: { busy: number; total: number } | undefined;
  private machineLast: { busy: number; total: number } | undefined;
  private startedAt = 0;
  private lastAt = 0;

  constructor(private readonly named: () => ReadonlyMap<number, string>) {}

  start(): void {
    this.first.clear();
    this.last.clear();
    this.startedAt = Date.now();
    this.machineFirst = parseMachine(readFileSync("/proc/stat", "utf8"));
    this.read(true);
  }

  sample(): void {
    if (this.startedAt === 0) return;
    this.read(false);
  }

  private read(baseline: boolean): void {
    const all = readProcesses();
    const named = this.named();
    for (const p of all.values()) {
      const key = `${p.pid}/${p.start}`;
      // A process born after the start counts from zero.
      if (!this.first.has(key)) this.first.set(key, baseline ? p.ticks : 0);
      this.last.set(key, { ticks: p.ticks, part: partOf(p, all, named) });
    }
    this.machineLast = parseMachine(readFileSync("/proc/stat", "utf8"));
    this.lastAt = Date.now();
  }

  shares(): CpuShares | undefined {
    const seconds = (this.lastAt - this.startedAt) / 1000;
    if (seconds <= 0 || !this.machineFirst || !this.machineLast) return undefined;
    const byPart = new Map<string, number>();
    for (const [key, { ticks, part }] of this.last) {
      const used = ticks - (this.first.get(key) ?? 0);
      if (used > 0) byPart.set(part, (byPart.get(part) ?? 0) + used);
    }
    const pct = (ticks: number) => Math.round((ticks / this.hz / seconds) * 100);
    const total = this.machineLast.total - this.machineFirst.total;
    const busy = this.machineLast.busy - this.machineFirst.busy;
    return {
      seconds,
      parts: [...byPart]
        .map(([part, ticks]) => ({ part, pct: pct(ticks) }))
        .filter((x) => x.pct > 0)
        .sort((a, b) => b.pct - a.pct),
      machineBusyPct: total > 0 ? Math.round((busy / total) * 100) : 0,
      cores: total > 0 ? Math.round(total / this.hz / seconds) : 0,
    };
  }
}

function clockTicksPerSecond(): number {
  try {
    const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}
