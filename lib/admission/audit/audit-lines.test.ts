import { describe, expect, it } from "vitest";
import { AuditLineSplitter } from "./audit-lines";

const b = (s: string) => Buffer.from(s, "utf8");

describe("AuditLineSplitter", () => {
  it("returns complete lines with the offset past each newline, holding back a partial one", () => {
    const s = new AuditLineSplitter(100);
    const r1 = s.push(b('{"a":1}\n{"b":'));
    expect(r1.lines).toEqual([{ text: '{"a":1}', end: 8 }]);
    expect(s.committed).toBe(8);
    expect(s.partialBytes).toBe(5);
    const r2 = s.push(b('2}\r\n\n{"c":3}\n'));
    expect(r2.lines).toEqual([
      { text: '{"b":2}', end: 17 },
      { text: '{"c":3}', end: 26 },
    ]);
    expect(s.committed).toBe(26);
    expect(s.partialBytes).toBe(0);
  });

  it("starts at a given offset (a resumed reader)", () => {
    const s = new AuditLineSplitter(100, 1000);
    expect(s.push(b("x\ny")).lines).toEqual([{ text: "x", end: 1002 }]);
    expect(s.committed).toBe(1002);
  });

  it("drops an oversized line whole, across chunks, without buffering it, and counts it once", () => {
    const s = new AuditLineSplitter(10);
    const r1 = s.push(b('{"ok":1}\n' + "y".repeat(8)));
    expect(r1).toEqual({ lines: [{ text: '{"ok":1}', end: 9 }], oversized: 0 });
    const r2 = s.push(b("z".repeat(50)));
    expect(r2).toEqual({ lines: [], oversized: 0 });
    expect(s.committed).toBe(9);
    const r3 = s.push(b('zz\n{"n":2}\n'));
    expect(r3.oversized).toBe(1);
    expect(r3.lines).toEqual([{ text: '{"n":2}', end: 9 + 8 + 50 + 3 + 8 }]);
    expect(s.committed).toBe(78);
  });

  it("skips the zeros a copytruncate leaves before the writer's next line", () => {
    const s = new AuditLineSplitter(10);
    const zeros = Buffer.alloc(5000);
    const r = s.push(Buffer.concat([zeros, b('{"t":1}\n'), Buffer.alloc(3), b('{"u":2}\n')]));
    expect(r.lines.map((l) => l.text)).toEqual(['{"t":1}', '{"u":2}']);
    expect(r.oversized).toBe(0);
    expect(s.committed).toBe(5000 + 8 + 3 + 8);
  });

  it("keeps a partial line intact when the caller reuses its buffer", () => {
    const s = new AuditLineSplitter(100);
    const buf = Buffer.from('{"half"');
    s.push(buf);
    buf.fill(0x41);
    expect(s.push(b(":1}\n")).lines).toEqual([{ text: '{"half":1}', end: 11 }]);
  });

  it("decodes a multi-byte character split across chunks", () => {
    const s = new AuditLineSplitter(100);
    const all = b('{"m":"é"}\n');
    s.push(all.subarray(0, 7));
    expect(s.push(all.subarray(7)).lines[0]?.text).toBe('{"m":"é"}');
  });

  it("is linear: a megabyte of short lines in one push", () => {
    const line = '{"kind":"Event","x":1}\n';
    const s = new AuditLineSplitter(1024);
    const r = s.push(b(line.repeat(50_000)));
    expect(r.lines).toHaveLength(50_000);
    expect(s.committed).toBe(line.length * 50_000);
  });
});
