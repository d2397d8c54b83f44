import { visibleText } from "./visible-text";

/**
 * A decision's message as a one-line cell shows it: why first. The apiserver reports a failed
 * webhook call as `failed to call webhook: Post "<url>": <why>` (its HTTP client's error wrapped
 * twice): the outcome badge already says the call failed and the URL is the same for every call
 * to the hook, so in a truncated cell the reason never showed. The cell starts at the reason; the
 * full message stays in its title and in the detail drawer. Any other message is shown as it is,
 * bidirectional controls written out (see visibleText).
 */
export function messageGist(message: string): string {
  return visibleText(gist(message));
}

function gist(message: string): string {
  const CALL = "failed to call webhook: ";
  if (!message.startsWith(CALL)) return message;
  const rest = message.slice(CALL.length);
  // Go's url.Error: the method as Go names it ("Post"), the quoted URL, then the error.
  const request = /^[A-Za-z]+ "[^"]*": /.exec(rest);
  const why = request ? rest.slice(request[0].length) : rest;
  return why === "" ? message : why;
}
