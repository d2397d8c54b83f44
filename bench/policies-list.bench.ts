/**
 * The policy list's first load: policies-first-load-js-kb is the gzipped (level 6) JavaScript
 * Chromium really fetches for /policies until load and network idle (measured like the webhook
 * list, bench/first-load-js.ts); Monaco must not be in it (policies-monaco-in-first-load is 0).
 * Budget: 170 kB. 20 policies with a binding each are seeded through the apiserver so the page
 * renders real rows, and removed afterwards. Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { pathToFileURL } from "node:url";
import { chromium } from "@playwright/test";
import { benchStack } from "./bench-stack";
import { firstLoadJs } from "./first-load-js";

type Measurement = { bench: string; value: number; unit: string };

export const benches = ["policies-first-load-js-kb", "policies-monaco-in-first-load"];

const G = "/apis/admissionregistration.k8s.io/v1";
const POLICIES = 20;

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const stack = await benchStack();
  const { info, kube: call } = stack;
  const prefix = `bench-pl-${Date.now().toString(36)}`;
  const names: string[] = [];
  try {
    for (let i = 0; i < POLICIES; i++) {
      const name = `${prefix}-${i}`;
      const p = await call("POST", `${G}/validatingadmissionpolicies`, {
        metadata: { name },
        spec: {
          matchConstraints: {
            resourceRules: [
              { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
            ],
            objectSelector: { matchLabels: { "portcullis-bench-never": "set" } },
          },
          validations: [{ expression: "object.metadata.name.size() < 64", message: "short names" }],
        },
      });
      if (p.status !== 201) throw new Error(`seed ${name}: ${p.status} ${p.body}`);
      names.push(name);
      const b = await call("POST", `${G}/validatingadmissionpolicybindings`, {
        metadata: { name },
        spec: { policyName: name, validationActions: ["Audit"] },
      });
      if (b.status !== 201) throw new Error(`seed binding ${name}: ${b.status} ${b.body}`);
    }
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      // One load warms the server's compiled routes.
      await firstLoadJs(browser, `${info.dashboardUrl}/policies`);
      const m = await firstLoadJs(browser, `${info.dashboardUrl}/policies`);
      return [
        {
          bench: "policies-first-load-js-kb",
          value: Math.round(m.firstKb * 10) / 10,
          unit: "kB",
        },
        { bench: "policies-monaco-in-first-load", value: m.monaco, unit: "bool" },
      ];
    } finally {
      await browser.close();
    }
  } finally {
    for (const n of names) {
      await call("DELETE", `${G}/validatingadmissionpolicybindings/${n}`);
      await call("DELETE", `${G}/validatingadmissionpolicies/${n}`);
    }
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
