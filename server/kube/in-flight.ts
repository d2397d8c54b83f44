/**
 * One apiserver question asked once while it is in flight: callers asking the same thing at the
 * same time (by `key`) share its answer. Nothing is kept once it is answered: the next caller
 * asks again, so an answer is never older than the question.
 *
 * Each caller keeps its own signal: one that aborts stops waiting at once, with its reason, and
 * the question itself is aborted only when every caller waiting for it has gone.
 */
interface Flight<T> {
  answer: Promise<T>;
  waiting: number;
  abort: AbortController;
}

export class InFlight<T> {
  private readonly flights = new Map<string, Flight<T>>();

  /** How many questions are in flight now. */
  get size(): number {
    return this.flights.size;
  }

  async ask(key: string, question: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) {
    signal?.throwIfAborted();
    let flight = this.flights.get(key);
    if (!flight) {
      const abort = new AbortController();
      const answer = question(abort.signal);
      const made: Flight<T> = { answer, waiting: 0, abort };
      this.flights.set(key, made);
      const done = () => {
        if (this.flights.get(key) === made) this.flights.delete(key);
      };
      answer.then(done, done);
      flight = made;
    }
    const joined = flight;
    joined.waiting++;
    try {
      return await untilAborted(joined.answer, signal);
    } finally {
      joined.waiting--;
      // The last caller gone before the answer: nobody wants it any more.
      if (joined.waiting === 0 && this.flights.get(key) === joined) {
        this.flights.delete(key);
        joined.abort.abort(signal?.reason);
      }
    }
  }
}

/** `p`, or the abort reason as soon as `signal` aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
