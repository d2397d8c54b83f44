/**
 * The predict page at 1,000 hooks (100 ValidatingWebhookConfigurations × 10 hooks with varied
 * rules, seeded through the apiserver and removed afterwards):
 * - predict-page-keystroke-ms: a key pressed in the object's YAML → the answer for the edited
 *   object painted, in Chromium (median of 15), timed in the page: from the keydown event to the
 *   frame after the request line shows the new name (parse, build, predict, explain, render).
 * Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { chromium } from "@playwright/test";
import type { StackInfo } from "../cluster/harness/stack";
import {
  benchHook,
  benchStack,
  deleteValidatingConfigs,
  median,
  seedValidatingConfigs,
} from "./seed-webhooks";

type Measurement = { bench: string; value: number; unit: string };

export const benches = ["predict-page-keystroke-ms"];

const CONFIGS = 100;
const HOOKS_PER_CONFIG = 10;
const SAMPLES = 15;
const RESOURCES: Array<[string, string]> = [
  ["", "configmaps"],
  ["apps", "deployments"],
  ["", "secrets"],
  ["", "pods"],
  ["batch", "jobs"],
];

function seed(info: StackInfo, prefix: string): Promise<string[]> {
  return seedValidatingConfigs(info, prefix, CONFIGS, (c, name) =>
    Array.from({ length: HOOKS_PER_CONFIG }, (_, h) => {
      const [group, resource] = RESOURCES[(c + h) % RESOURCES.length] as [string, string];
      return benchHook(name, h, {
        rules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: [group],
            apiVersions: ["v1"],
            resources: [resource],
          },
        ],
        // Never true in a real namespace: the hooks are skipped, each with its reason.
        namespaceSelector: { matchLabels: { "portcullis-bench-never": `set-${h}` } },
        ...(h % 4 === 0 ? { objectSelector: { matchLabels: { tier: "web" } } } : {}),
      });
    }),
  );
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const { info, own } = await benchStack();
  const names: string[] = [];
  try {
    names.push(...(await seed(info, `bench-pp-${Date.now().toString(36)}`)));
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      await page.goto(`${info.dashboardUrl}/predict`);
      await page.getByTestId("verdict").waitFor();
      const notCalled = await page.getByRole("region", { name: "Not called" }).textContent();
      if (!notCalled || !/\d{3,}/.test(notCalled.replace(/\s/g, "")))
        throw new Error("the page does not show the seeded hooks as not called");
      const samples: number[] = [];
      let name = "example";
      for (let i = 0; i < SAMPLES + 2; i++) {
        name += "x";
        const pending = page.evaluate((expected) => {
          return new Promise<number>((resolve) => {
            const ta = document.querySelector<HTMLTextAreaElement>("#predict-object");
            const line = document.querySelector('[data-testid="request-line"]');
            if (!ta || !line) throw new Error("page not ready");
            let t0 = 0;
            ta.addEventListener("keydown", () => (t0 = performance.now()), {
              once: true,
              capture: true,
            });
            const obs = new MutationObserver(() => {
              if (!(line.textContent ?? "").includes(`named ${expected}`)) return;
              obs.disconnect();
              requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0)));
            });
            obs.observe(line, { subtree: true, childList: true, characterData: true });
          });
        }, name);
        await page.evaluate(() => {
          const ta = document.querySelector<HTMLTextAreaElement>("#predict-object");
          if (!ta) return;
          const at = ta.value.indexOf("\n", ta.value.indexOf("name: "));
          ta.focus();
          ta.setSelectionRange(at, at);
        });
        await page.keyboard.press("x");
        const ms = await pending;
        // The first presses warm the JIT and React's paths up.
        if (i >= 2) samples.push(ms);
      }
      return [
        {
          bench: "predict-page-keystroke-ms",
          value: Math.round(median(samples) * 10) / 10,
          unit: "ms",
        },
      ];
    } finally {
      await browser.close();
    }
  } finally {
    await deleteValidatingConfigs(info, names);
    await own?.stop();
  }
}
