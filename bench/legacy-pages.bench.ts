/**
 * The historical kinds' pages' first load: legacy-webhooks-first-load-js-kb,
 * initializers-first-load-js-kb and external-hooks-first-load-js-kb are the gzipped JavaScript
 * Chromium really fetches for /legacy-webhooks, /initializers and /external-admission-hooks until
 * load and network idle (bench/first-load-js.ts); Monaco must not be in any of them (the editor
 * loads when opened). Budget: 170 kB, like the other list pages. 20 v1beta1 configurations of two
 * hooks each are seeded in the legacy group so the page renders real rows, and removed
 * afterwards. Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { pathToFileURL } from "node:url";
import { chromium } from "@playwright/test";
import { benchStack } from "./bench-stack";
import { LEGACY_ADMISSION_GROUP } from "../cluster/legacy-crds";
import { firstLoadJs } from "./first-load-js";

type Measurement = { bench: string; value: number; unit: string };

const PAGES = [
  ["legacy-webhooks", "/legacy-webhooks"],
  ["initializers", "/initializers"],
  ["external-hooks", "/external-admission-hooks"],
] as const;

export const benches = PAGES.flatMap(([b]) => [
  `${b}-first-load-js-kb`,
  `${b}-monaco-in-first-load`,
]);

const MWC = `/apis/${LEGACY_ADMISSION_GROUP}/v1beta1/mutatingwebhookconfigurations`;
const CONFIGS = 20;

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const stack = await benchStack();
  const { info, kube: call } = stack;
  const prefix = `bench-lw-${Date.now().toString(36)}`;
  const names: string[] = [];
  try {
    for (let i = 0; i < CONFIGS; i++) {
      const name = `${prefix}-${i}`;
      const hook = (h: string) => ({
        name: `${h}.${name}.example.com`,
        clientConfig: { service: { namespace: "hooks", name: "inject" } },
        rules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
      });
      const r = await call("POST", MWC, {
        apiVersion: `${LEGACY_ADMISSION_GROUP}/v1beta1`,
        kind: "MutatingWebhookConfiguration",
        metadata: { name },
        webhooks: [hook("a"), hook("b")],
      });
      if (r.status !== 201) throw new Error(`seed ${name}: ${r.status} ${r.body}`);
      names.push(name);
    }
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    const out: Measurement[] = [];
    try {
      for (const [b, path] of PAGES) {
        // One load warms the server's compiled routes.
        await firstLoadJs(browser, `${info.dashboardUrl}${path}`);
        const m = await firstLoadJs(browser, `${info.dashboardUrl}${path}`);
        out.push(
          { bench: `${b}-first-load-js-kb`, value: Math.round(m.firstKb * 10) / 10, unit: "kB" },
          { bench: `${b}-monaco-in-first-load`, value: m.monaco, unit: "bool" },
        );
      }
    } finally {
      await browser.close();
    }
    return out;
  } finally {
    for (const n of names) await call("DELETE", `${MWC}/${n}`);
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
