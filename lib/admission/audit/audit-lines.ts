/**
 * Splits the bytes of an audit log (JSON lines, as the apiserver's `--audit-log-path` writes
 * them) into complete lines, in linear time and bounded memory:
 * - a partial last line is held back until its newline arrives (the writer may be mid-line);
 * - a line longer than `maxLineBytes` is dropped whole (counted), never buffered past the bound;
 * - NUL bytes before a line are skipped: after a copytruncate the writer, which does not append,
 *   keeps writing at its old offset and the file starts with a hole that reads as zeros.
 * Every line carries the file offset just past its newline: what a reader may persist as "read".
 */

const NEWLINE = 0x0a;
const NUL = 0x00;

interface AuditLine {
  /** The line without its newline (and without a trailing carriage return). */
  text: string;
  /** File offset just past this line's newline. */
  end: number;
}

export interface SplitResult {
  lines: AuditLine[];
  /** Lines dropped because they were longer than the bound (each counted once, at its newline). */
  oversized: number;
}

export class AuditLineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line that went over the bound: bytes are dropped up to its newline. */
  private skipping = false;
  private skippedBytes = 0;
  /** File offset of the next byte `push` receives. */
  private position: number;

  constructor(
    readonly maxLineBytes: number,
    start = 0,
  ) {
    this.position = start;
  }

  /** Offset just past the last complete line (where a restarted reader resumes). */
  get committed(): number {
    return this.position - this.pendingBytes - (this.skipping ? this.skippedBytes : 0);
  }

  /** Bytes of a partial line held back (or being skipped). */
  get partialBytes(): number {
    return this.pendingBytes + (this.skipping ? this.skippedBytes : 0);
  }

  /** Feeds the next bytes of the file; returns the lines they complete. */
  push(chunk: Buffer): SplitResult {
    const lines: AuditLine[] = [];
    let oversized = 0;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      // At a line start: skip the zeros of a truncated file's hole.
      if (this.pendingBytes === 0 && !this.skipping) {
        while (i < n && chunk[i] === NUL) i++;
        if (i === n) break;
      }
      const nl = chunk.indexOf(NEWLINE, i);
      const stop = nl === -1 ? n : nl;
      const piece = stop - i;
      if (this.skipping) {
        this.skippedBytes += piece;
      } else if (this.pendingBytes + piece > this.maxLineBytes) {
        this.skipping = true;
        this.skippedBytes = this.pendingBytes + piece;
        this.pending = [];
        this.pendingBytes = 0;
      } else if (piece > 0) {
        this.pending.push(chunk.subarray(i, stop));
        this.pendingBytes += piece;
      }
      if (nl === -1) break;
      const end = this.position + nl + 1;
      if (this.skipping) {
        oversized++;
        this.skipping = false;
        this.skippedBytes = 0;
      } else {
        const bytes =
          this.pending.length === 1
            ? (this.pending[0] as Buffer)
            : Buffer.concat(this.pending, this.pendingBytes);
        let text = bytes.toString("utf8");
        if (text.endsWith("\r")) text = text.slice(0, -1);
        if (text.length > 0) lines.push({ text, end });
      }
      this.pending = [];
      this.pendingBytes = 0;
      i = nl + 1;
    }
    // The partial line's last piece is a view of the caller's buffer, which may be reused: copy it.
    const last = this.pending.length - 1;
    if (last >= 0) this.pending[last] = Buffer.from(this.pending[last] as Buffer);
    this.position += n;
    return { lines, oversized };
  }
}
