/**
 * The timeline of a webhook configuration with 10,000 stored changes: its first screen (the
 * newest page of changes with their diffs) must come under 300 ms.
 * - history-timeline-10k-api-ms: the server's answer for the first page (GET
 *   /api/history/objects/…, 50 changes with their field diffs), median of 5 after a warm-up;
 * - history-timeline-10k-first-screen-ms: from navigation start to the first change painted on
 *   /history/ValidatingWebhookConfiguration/<name> in Chromium (server answer + first render; the
 *   server renders the newest 20 changes, TIMELINE_FIRST_SCREEN), median of 3 after a warm-up
 *   load (bench/browser-measure.ts), and the time Playwright saw it;
 * - history-timeline-1-first-screen-ms: the same page for a configuration with one change, in
 *   the same run: the reference (what any timeline costs here, whatever its length).
 * The 10,000 changes are written into the dashboard's own SQLite store (the table is created by
 * a first read) as the watch and the audit sink write them: one configuration, one version each,
 * every tenth by the watch alone. Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { chromium } from "@playwright/test";
import { benchStack } from "./bench-stack";
import { median, paintBenches } from "./browser-measure";
import { policyHeaders } from "../test/api-headers";

type Measurement = { bench: string; value: number; unit: string };

export const benches = [
  "history-timeline-10k-api-ms",
  "history-timeline-10k-first-screen-ms",
  "history-timeline-1-first-screen-ms",
];

const CHANGES = 10_000;
const KIND = "ValidatingWebhookConfiguration";

function version(name: string, uid: string, i: number) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: KIND,
    metadata: { name, uid, resourceVersion: String(1000 + i), generation: i + 1 },
    webhooks: [
      {
        name: "a.bench.example.com",
        clientConfig: { url: "https://hooks.bench.example.com/a" },
        rules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE", "UPDATE"],
            resources: ["pods", "services"],
          },
        ],
        namespaceSelector: {
          matchExpressions: [{ key: "team", operator: "In", values: [`t${i % 7}`] }],
        },
        failurePolicy: i % 2 ? "Fail" : "Ignore",
        timeoutSeconds: 1 + (i % 29),
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  };
}

export async function run(): Promise<Measurement[]> {
  const stack = await benchStack();
  const { info } = stack;
  const name = `bench-history-${Date.now().toString(36)}`;
  const api = `${info.dashboardUrl}/api/history/objects/${KIND}/${name}?limit=50`;
  const headers = policyHeaders(info.contexts.admin);
  try {
    // A first read creates the history's table in the dashboard's store.
    const first = await fetch(api, { headers });
    if (first.status !== 200) throw new Error(`timeline: ${first.status} ${await first.text()}`);
    const db = new Database(path.join(info.dir, "data", "decisions.sqlite"));
    db.pragma("busy_timeout = 10000");
    const insert = db.prepare(
      "INSERT INTO admission_changes (time, kind, name, uid, version_key, operation, source, audit_id, user_name, user_groups, user_agent, impersonator, object, patch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
    );
    const uid = `uid-${name}`;
    const t0 = Date.now() - CHANGES * 60_000;
    const single = `${name}-one`;
    db.transaction(() => {
      insert.run(
        Date.now(),
        KIND,
        single,
        `uid-${single}`,
        "1000",
        "create",
        "watch",
        "",
        null,
        null,
        null,
        null,
        JSON.stringify(version(single, `uid-${single}`, 0)),
      );
      for (let i = 0; i < CHANGES; i++) {
        const watch = i % 10 === 9;
        insert.run(
          t0 + i * 60_000,
          KIND,
          name,
          uid,
          String(1000 + i),
          i === 0 ? "create" : "update",
          watch ? "watch" : "audit",
          watch ? "" : `audit-${i}`,
          watch ? null : `user-${i % 5}`,
          watch ? null : JSON.stringify(["system:authenticated", "team-admins"]),
          watch ? null : "kubectl/v1.37.2",
          watch || i % 3 ? null : "admin",
          JSON.stringify(version(name, uid, i)),
        );
      }
    })();
    db.close();

    const apiMs: number[] = [];
    for (let i = 0; i <= 5; i++) {
      const t = performance.now();
      const res = await fetch(api, { headers });
      const body = (await res.json()) as { total: number; entries: unknown[] };
      if (body.total !== CHANGES || body.entries.length !== 50)
        throw new Error(`timeline answered ${body.total} changes, ${body.entries.length} entries`);
      if (i > 0) apiMs.push(performance.now() - t);
    }
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      const paint = await paintBenches(
        browser,
        `${info.dashboardUrl}/history/${KIND}/${name}`,
        '[data-testid="timeline-entry"]',
        "history-timeline-10k-first-screen-ms",
      );
      const reference = await paintBenches(
        browser,
        `${info.dashboardUrl}/history/${KIND}/${single}`,
        '[data-testid="timeline-entry"]',
        "history-timeline-1-first-screen-ms",
      );
      return [
        {
          bench: "history-timeline-10k-api-ms",
          value: Math.round(median(apiMs) * 10) / 10,
          unit: "ms",
        },
        ...paint,
        ...reference,
      ];
    } finally {
      await browser.close();
    }
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
