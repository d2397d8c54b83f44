/**
 * First-load JavaScript of a list page with whether Monaco is in it (the webhook and policy
 * list benchmarks): bench/browser-measure.ts measured with a Monaco marker.
 */
import type { Browser } from "@playwright/test";
import { firstLoadJs as measure } from "./browser-measure";

export interface FirstLoadJs {
  /** Gzipped kB of the scripts the page needs to load. */
  firstKb: number;
  /** Gzipped kB of scripts deferred on purpose (requested after load, not named by the HTML). */
  lazyKb: number;
  /** 1 when Monaco is in the first load. */
  monaco: number;
}

const MONACO = /MonacoEnvironment|monaco-editor|vs\/editor\/editor/;

/** Measures the page at `url` in a fresh browser context. */
export async function firstLoadJs(browser: Browser, url: string): Promise<FirstLoadJs> {
  const m = await measure(browser, url, { monaco: MONACO });
  return { firstKb: m.firstKb, lazyKb: m.lazyKb, monaco: m.found.monaco ? 1 : 0 };
}
