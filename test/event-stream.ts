/**
 * Reads a response body (an event stream) as it arrives: `text` is everything read so far, and
 * `ended` resolves with all of it once the stream ends or breaks off (abort the fetch to end it).
 */
export function readEventStream(body: ReadableStream<Uint8Array>): {
  readonly text: string;
  ended: Promise<string>;
} {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const state = { text: "" };
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return state.text;
      state.text += decoder.decode(value, { stream: true });
    }
  })();
  return {
    get text() {
      return state.text;
    },
    ended,
  };
}
