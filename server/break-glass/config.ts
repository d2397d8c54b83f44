import "server-only";
import { z } from "zod";

/** Break-glass settings, read from the environment (docs/operating.md, "Break-glass"). */
export interface BreakGlassConfig {
  /** The longest break-glass anyone may ask for (PORTCULLIS_BREAK_GLASS_MAX_MINUTES). */
  maxMs: number;
  /** The duration offered first. */
  defaultMs: number;
  /**
   * How often each dashboard reads the open episodes from the store (PORTCULLIS_BREAK_GLASS_SWEEP_SECONDS):
   * episodes another replica started get a timer here too, and a revert whose claimer died is
   * taken over once its lease has run out.
   */
  sweepMs: number;
  /** How long a claimed revert is held before another process may take it over. */
  leaseMs: number;
}

const env = z.object({
  PORTCULLIS_BREAK_GLASS_MAX_MINUTES: z.coerce
    .number()
    .positive()
    .max(7 * 24 * 60)
    .default(240),
  PORTCULLIS_BREAK_GLASS_SWEEP_SECONDS: z.coerce.number().min(0.2).max(3600).default(15),
});

export function breakGlassConfig(source: NodeJS.ProcessEnv = process.env): BreakGlassConfig {
  const parsed = env.safeParse(source);
  if (!parsed.success)
    throw new Error(
      `bad break-glass setting: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const maxMs = parsed.data.PORTCULLIS_BREAK_GLASS_MAX_MINUTES * 60_000;
  return {
    maxMs,
    defaultMs: Math.min(30 * 60_000, maxMs),
    sweepMs: parsed.data.PORTCULLIS_BREAK_GLASS_SWEEP_SECONDS * 1000,
    leaseMs: 30_000,
  };
}
