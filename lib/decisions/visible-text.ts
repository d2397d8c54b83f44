/**
 * Text from the cluster as the feed shows it (pure): Unicode's bidirectional controls written out
 * as `\u202e`, the escape JSON uses, instead of obeyed. Obeyed, a user named `\u202enimda` reads
 * "admin" and a message's words run backwards: a user name (an OIDC claim, a token file's line),
 * a webhook's message or an object's name is whatever its author typed. Linear.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function visibleText(s: string): string {
  return s.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
