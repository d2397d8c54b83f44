/**
 * Replay before apply at 10,000 requests (issue 59's budget: under 1 s), against a cluster of
 * 1,000 varied webhooks in 1,000 namespaces, an edit narrowing a mutating hook on pod creations
 * to production namespaces:
 * - admission-replay-10k-cases-ms: 10,000 kept cases read from the case store (SQLite), built
 *   into requests and predicted against the state before and after the edit — what the editor's
 *   replay costs the server once it has the admission state (budget 1,000 ms);
 * - admission-replay-10k-feed-ms: the same from the decision feed: the hook's last 10,000
 *   decisions read with their audit events (Request level, ~1 KB each) from the store;
 * - admission-replay-10k-predict-ms: the replay alone, the requests already built: both
 *   snapshots compiled once, each request screened by matching the edited hooks in both (a
 *   request they match alike cannot change), the others predicted once before the edit with
 *   the edited hooks judged again for the state after it (both predictions when a failure or
 *   PodSecurity makes the chain depend on them), the first 500 changed ones explained; admission-replay-10k-unscreened-ms: the same with every request
 *   predicted against both versions (20,000 predictions);
 * - admission-replay-10k-policy-ms: the kept cases against an edit of a ValidatingAdmissionPolicy's
 *   validation (five policies on pod creations, the cluster's validating webhooks): each request
 *   predicted, its policies evaluated offline before and after the edit (the unedited ones once),
 *   half of them newly denied (`…-policy-changed`).
 * Each is the median of 3 runs after a warm-up (wall clock, and `…-cpu-ms` the process's CPU
 * time, which a machine shared with other work distorts far less), in a process of its own (server modules load
 * under the react-server condition). `…-changed` says how many requests the edit changes (about
 * two thirds: the namespaces not labelled env=prod), so the reasons are part of the cost.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

type Measurement = { bench: string; value: number; unit: string };

export const benches = ["admission-replay"];

export async function run(): Promise<Measurement[]> {
  const out = execFileSync(
    process.execPath,
    [
      "--conditions=react-server",
      "--import",
      "tsx",
      path.join(import.meta.dirname, "admission-replay.worker.ts"),
    ],
    {
      cwd: path.resolve(import.meta.dirname, ".."),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const r = JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<
    "cases" | "feed" | "predictOnly" | "unscreened" | "policy",
    { ms: number; cpuMs: number; changed: number; replayed?: number }
  >;
  return [
    { bench: "admission-replay-10k-cases-ms", value: r.cases.ms, unit: "ms" },
    { bench: "admission-replay-10k-feed-ms", value: r.feed.ms, unit: "ms" },
    { bench: "admission-replay-10k-predict-ms", value: r.predictOnly.ms, unit: "ms" },
    { bench: "admission-replay-10k-unscreened-ms", value: r.unscreened.ms, unit: "ms" },
    { bench: "admission-replay-10k-cases-cpu-ms", value: r.cases.cpuMs, unit: "ms" },
    { bench: "admission-replay-10k-feed-cpu-ms", value: r.feed.cpuMs, unit: "ms" },
    { bench: "admission-replay-10k-predict-cpu-ms", value: r.predictOnly.cpuMs, unit: "ms" },
    { bench: "admission-replay-10k-changed", value: r.predictOnly.changed, unit: "requests" },
    { bench: "admission-replay-10k-policy-ms", value: r.policy.ms, unit: "ms" },
    { bench: "admission-replay-10k-policy-cpu-ms", value: r.policy.cpuMs, unit: "ms" },
    { bench: "admission-replay-10k-policy-changed", value: r.policy.changed, unit: "requests" },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
