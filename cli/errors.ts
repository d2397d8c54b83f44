/** Failures the command line reports with an exit code instead of a stack trace. */

/** Exit codes shared by every command. */
export const EXIT = {
  /** Clean: valid, no findings at the threshold, request admitted as far as prediction goes. */
  ok: 0,
  /** Invalid configuration, findings at or above --fail-on, or a predicted rejection. */
  findings: 1,
  /** Bad usage, unreadable input, or a cluster that could not be read. */
  usage: 2,
} as const;

/** A usage mistake (unknown flag, missing argument): the message is followed by a usage hint. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Input that cannot be read: a missing file, a directory without manifests, a missing context. */
export class InputError extends Error {
  override readonly name = "InputError";
}
