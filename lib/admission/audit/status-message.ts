/**
 * Who refused a request, read from the apiserver's status message: a webhook's denial, a failed
 * call to it (an error or a timeout), a refusal the apiserver makes on a webhook's behalf, or an
 * admission policy's refusal. Shared by the decision feed (audit events' responseStatus), the
 * Predict page's dry-run verdict and a policy's "Try a request". Pure; linear scans only.
 */

export type StatusReading =
  | { by: "webhook"; hook: string; outcome: "denied" | "error" | "timeout"; message: string }
  | {
      by: "policy";
      kind: "validating-policy" | "mutating-policy";
      hook: string;
      binding: string;
      message: string;
    };

const TIMEOUT_MARKERS = [
  "context deadline exceeded",
  "Client.Timeout exceeded",
  "i/o timeout",
  "request did not complete within",
];

const INTERNAL_ERROR = "Internal error occurred: ";

/**
 * Where the text an admission error was made from starts in a status message: 0, or just past
 * the prefix apimachinery's NewForbidden adds (`forbidden: `, `<resource> is forbidden: `,
 * `<resource> "<name>" is forbidden: ` with the name quoted as Go's %q does — a name may hold
 * quotes, spaces, anything but a slash), or past NewInternalError's `Internal error occurred: `.
 * Only there do the apiserver's own phrases count: further on, the same words are the refusing
 * hook's or policy's message, which can quote anything (another hook's name, an annotation).
 */
function errorTextStarts(message: string): number[] {
  const starts = [0];
  if (message.startsWith(INTERNAL_ERROR)) starts.push(INTERNAL_ERROR.length);
  const FORBIDDEN = " is forbidden: ";
  if (message.startsWith("forbidden: ")) starts.push(11);
  const space = message.indexOf(" ");
  if (space > 0 && message.startsWith(FORBIDDEN, space)) starts.push(space + FORBIDDEN.length);
  else if (space > 0 && message.charCodeAt(space + 1) === 0x22) {
    // <resource> "<name>" is forbidden: — past the quoted name, escapes and all.
    let i = space + 2;
    while (i < message.length && message.charCodeAt(i) !== 0x22)
      i += message.charCodeAt(i) === 0x5c ? 2 : 1;
    if (message.startsWith(FORBIDDEN, i + 1)) starts.push(i + 1 + FORBIDDEN.length);
  }
  return starts;
}

/** The quoted name at `at` (after `open`) up to `close`: [name, index past close], or undefined. */
function quotedAt(
  s: string,
  at: number,
  open: string,
  close: string,
): [string, number] | undefined {
  if (!s.startsWith(open, at)) return undefined;
  const start = at + open.length;
  const end = s.indexOf(close, start);
  return end < 0 ? undefined : [s.slice(start, end), end + close.length];
}

/** What follows a phrase: the text after ": ", else the rest trimmed. */
const afterColon = (rest: string) => (rest.startsWith(": ") ? rest.slice(2) : rest.trim());

/**
 * The apiserver's refusals of a request on behalf of a webhook that are not the webhook's own
 * answer (the object or the configuration made the call impossible): outcome error.
 */
const WEBHOOK_REFUSALS = [
  // mutating/dispatcher.go: a patch for a DELETE or CONNECT, which has no object to patch.
  " attempted to modify the object, which is not supported for this operation",
  // webhook/errors NewDryRunUnsupportedErr: a dry run through a hook with side effects
  // (admissionregistration v1beta1, where sideEffects may be Unknown or Some).
  " does not support dry run",
];

/** A webhook named by a status message at one of its error text starts. */
function webhookStatus(message: string, at: number): StatusReading | undefined {
  const named = quotedAt(message, at, 'admission webhook "', '"');
  if (named) {
    const rest = message.slice(named[1]);
    if (rest.startsWith(" denied the request"))
      return {
        by: "webhook",
        hook: named[0],
        outcome: "denied",
        message: afterColon(rest.slice(19)),
      };
    const refusal = WEBHOOK_REFUSALS.find((r) => rest.startsWith(r));
    if (refusal) return { by: "webhook", hook: named[0], outcome: "error", message: rest.trim() };
    return undefined;
  }
  // util/webhook ErrCallingWebhook; older apiservers wrote "failed calling admission webhook".
  const failed =
    quotedAt(message, at, 'failed calling webhook "', '"') ??
    quotedAt(message, at, 'failed calling admission webhook "', '"');
  if (!failed) return undefined;
  const rest = message.slice(failed[1]);
  return {
    by: "webhook",
    hook: failed[0],
    outcome: TIMEOUT_MARKERS.some((m) => rest.includes(m)) ? "timeout" : "error",
    message: afterColon(rest),
  };
}

/** A policy named by a status message at one of its error text starts. */
function policyStatus(message: string, at: number): StatusReading | undefined {
  // The validating dispatcher names its kind; mutating policies are refused through the generic
  // dispatcher's PolicyError: `policy 'P' with binding 'B' denied request: …` or `policy "P" …`.
  for (const [open, close, kind, named] of [
    ["ValidatingAdmissionPolicy '", "'", "validating-policy", true],
    ["MutatingAdmissionPolicy '", "'", "mutating-policy", true],
    ["policy '", "'", "mutating-policy", false],
    ['policy "', '"', "mutating-policy", false],
  ] as const) {
    const policy = quotedAt(message, at, open, close);
    if (!policy) continue;
    let rest = message.slice(policy[1]);
    let binding = "";
    const b = quotedAt(rest, 0, " with binding '", "'");
    if (b) {
      binding = b[0];
      rest = rest.slice(b[1]);
    }
    const marker = " denied request: ";
    // Unnamed forms only when the refusal follows at once: "policy '…'" alone could be any text.
    if (!named && !rest.startsWith(marker)) continue;
    return {
      by: "policy",
      kind,
      hook: policy[0],
      binding,
      message: rest.startsWith(marker) ? rest.slice(marker.length) : rest.trim(),
    };
  }
  return undefined;
}

/**
 * Reads who refused the request from its response status message: the apiserver's phrases only
 * where its error text starts (see errorTextStarts), so words quoted inside a message never name
 * a hook. Linear scans only.
 */
export function readStatusMessage(message: string): StatusReading | undefined {
  for (const at of errorTextStarts(message)) {
    const reading = webhookStatus(message, at) ?? policyStatus(message, at);
    if (reading) return reading;
  }
  return undefined;
}
