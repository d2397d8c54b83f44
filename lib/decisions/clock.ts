/** A decision's time of day as the decision pages show it: 24-hour, to the second (pure). */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour12: false });
}
