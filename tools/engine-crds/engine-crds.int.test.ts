/**
 * The committed engine CRDs and Gatekeeper objects are what regenerating them gives, byte for
 * byte (`npm run engine-crds`): controller-gen over the engines' Go API types, Gatekeeper's own
 * code for what it creates at run time. The first run builds controller-gen and
 * gatekeeper-objects (cached in tools/engine-crds/bin).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CRDS_DIR, ENGINE_CRD_FILES, SEED_DIR, generateEngineCrds } from "./engine-crds";

const out = mkdtempSync(path.join(tmpdir(), "engine-crds-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("engine CRDs", () => {
  it("regenerating them gives the committed bytes", { timeout: 900_000 }, async () => {
    await generateEngineCrds({ crds: path.join(out, "crds"), seed: path.join(out, "seed") });
    const generated = [...ENGINE_CRD_FILES.gatekeeper, ...ENGINE_CRD_FILES.kyverno];
    for (const f of generated)
      expect(readFileSync(path.join(out, "crds", f), "utf8"), f).toBe(
        readFileSync(path.join(CRDS_DIR, f), "utf8"),
      );
    for (const f of readdirSync(path.join(out, "seed")))
      expect(readFileSync(path.join(out, "seed", f), "utf8"), f).toBe(
        readFileSync(path.join(SEED_DIR, f), "utf8"),
      );
  });
});
