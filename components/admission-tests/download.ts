import type { TestCase } from "@/lib/admission/testing/format";

/**
 * Saves cases as a test file (YAML) through the browser's download. The format's writer loads
 * only when asked.
 */
export async function downloadCases(cases: readonly TestCase[], suiteName: string): Promise<void> {
  const { suiteFileName, suiteText } = await import("@/lib/replay/download");
  const blob = new Blob([suiteText(cases, suiteName)], { type: "application/yaml" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = suiteFileName(suiteName);
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has been handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
