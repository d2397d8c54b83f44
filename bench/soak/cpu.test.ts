import { describe, expect, it } from "vitest";
import { parseMachine, parseStat, partOf, type ProcStat } from "./cpu";

/** A /proc/<pid>/stat line with the fields the account reads set, the others zero. */
function statLine(
  pid: number,
  comm: string,
  ppid: number,
  utime: number,
  stime: number,
  start = 7,
) {
  const after = Array.from({ length: 50 }, () => "0");
  // after[i] is field i + 3: state, ppid (4), …, utime (14), stime (15), …, starttime (22).
  after[0] = "S";
  after[1] = String(ppid);
  after[11] = String(utime);
  after[12] = String(stime);
  after[19] = String(start);
  return `${pid} (${comm}) ${after.join(" ")}\n`;
}

describe("the soak's CPU account", () => {
  it("reads a process's line, its name holding spaces and parentheses", () => {
    expect(parseStat(statLine(42, "node", 1, 300, 45, 99))).toEqual({
      pid: 42,
      comm: "node",
      ppid: 1,
      ticks: 345,
      start: 99,
    });
    expect(parseStat(statLine(7, "a) (b c) 1 2", 3, 10, 5))).toMatchObject({
      pid: 7,
      comm: "a) (b c) 1 2",
      ppid: 3,
      ticks: 15,
    });
    expect(parseStat("")).toBeUndefined();
    expect(parseStat("12 (x) S")).toBeUndefined();
  });

  it("takes idle and iowait as the machine's idle time", () => {
    const stat = "cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 50 2 25 400 10 0 1 1 0 0\nintr 1\n";
    expect(parseMachine(stat)).toEqual({ busy: 161, total: 981 });
    expect(parseMachine("intr 1\n")).toBeUndefined();
  });

  it("puts a process in its part by name first, then by the named process it descends from", () => {
    const procs: ProcStat[] = [
      { pid: 1, comm: "init", ppid: 0, ticks: 0, start: 0 },
      { pid: 10, comm: "node", ppid: 1, ticks: 0, start: 0 },
      { pid: 11, comm: "kube-apiserver", ppid: 10, ticks: 0, start: 0 },
      { pid: 12, comm: "node", ppid: 10, ticks: 0, start: 0 },
      { pid: 13, comm: "next-server (v1", ppid: 12, ticks: 0, start: 0 },
      { pid: 14, comm: "chromium", ppid: 10, ticks: 0, start: 0 },
      { pid: 15, comm: "postgres", ppid: 10, ticks: 0, start: 0 },
      { pid: 16, comm: "bash", ppid: 1, ticks: 0, start: 0 },
    ];
    const all = new Map(procs.map((p) => [p.pid, p]));
    const named = new Map([
      [10, "harness"],
      [12, "pg-1"],
    ]);
    const part = (pid: number) => partOf(all.get(pid)!, all, named);
    expect(part(11)).toBe("kube-apiserver");
    expect(part(13)).toBe("pg-1");
    expect(part(12)).toBe("pg-1");
    expect(part(14)).toBe("chromium");
    expect(part(15)).toBe("postgres");
    expect(part(10)).toBe("harness");
    expect(part(16)).toBe("other");
  });
});
