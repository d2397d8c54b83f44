import type { ProbeResult } from "@/lib/admission/health/health";

/** A probe result in a few words, and the tone (CSS class) to show it in. */
export function probeText(p: ProbeResult): { text: string; tone: string } {
  switch (p.status) {
    case "ok":
      return { text: `TLS ok, ${Math.round(p.latencyMs)} ms`, tone: "good" };
    case "tls-failed":
      return { text: `TLS failed: ${p.error}`, tone: "bad" };
    case "down":
      return { text: `down: ${p.error}`, tone: "bad" };
    case "unreachable-from-here":
      return { text: "not reachable from the dashboard", tone: "muted" };
    case "not-probed":
      return { text: `not probed: ${p.reason}`, tone: "muted" };
  }
}

/** Seconds as whole milliseconds, "—" when unknown. */
export const msText = (s: number | undefined) =>
  s === undefined ? "—" : `${Math.round(s * 1000)}`;
