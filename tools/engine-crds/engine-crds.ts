/**
 * The policy engines' CustomResourceDefinitions, generated from their published Go API types by
 * controller-gen (declared as a Go tool in tools/engine-crds/go.mod, with the engines' modules
 * pinned beside it), and what Gatekeeper creates at run time for a ConstraintTemplate and its
 * Constraints, made by Gatekeeper's own code (gatekeeper-objects/main.go).
 *
 * The generated YAML is committed under crds/ so the control plane installs it without a Go
 * build; `npm run engine-crds` regenerates it, and engine-crds.int.test.ts checks that
 * regenerating gives the same bytes. Generating it takes controller-gen's build (about a minute
 * cold on 2 cores) and the engines' modules' download; the committed YAML costs nothing per run.
 *
 * Kubewarden: its controller's Go module (github.com/kubewarden/adm-controller, in the
 * kubewarden/kubewarden-controller repository) is not served by the module proxy, so its CRDs are
 * the ones the Kubewarden project generates itself with controller-gen v0.18.0, copied from
 * charts/kubewarden-crds/templates/crds/ at commit 3460bb719b3816ddf5eb958665282c9b9ce8ee29
 * (v1.36.0-beta.1-6) unchanged; they are not regenerated here.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureGoTools, type GoToolBuild } from "../../cluster/build";

export const ENGINE_CRDS_DIR = import.meta.dirname;
const BIN = path.join(ENGINE_CRDS_DIR, "bin");
/** The committed, generated YAML. */
export const CRDS_DIR = path.join(ENGINE_CRDS_DIR, "crds");
/** The demo's Gatekeeper policies (written by hand) and what Gatekeeper makes of them (generated). */
export const SEED_DIR = path.join(ENGINE_CRDS_DIR, "seed");

const CONTROLLER_GEN: GoToolBuild = {
  label: "controller-gen",
  moduleDir: ENGINE_CRDS_DIR,
  binDir: path.join(BIN, "controller-gen.d"),
  tools: ["sigs.k8s.io/controller-tools/cmd/controller-gen"],
  ldflags: "",
  binaries: [path.join(BIN, "controller-gen.d", "controller-gen")],
  coldEstimate: "about a minute",
};

/**
 * A module of its own, so Gatekeeper's code builds against the Kubernetes libraries Gatekeeper
 * v3.23.1 requires (controller-tools v0.23.0 requires newer ones).
 */
const GATEKEEPER_OBJECTS_DIR = path.join(ENGINE_CRDS_DIR, "gatekeeper-objects");
const GATEKEEPER_OBJECTS: GoToolBuild = {
  label: "gatekeeper-objects (Gatekeeper v3.23.1's own code)",
  moduleDir: GATEKEEPER_OBJECTS_DIR,
  binDir: path.join(BIN, "gatekeeper-objects.d"),
  tools: ["."],
  sources: [path.join(GATEKEEPER_OBJECTS_DIR, "main.go")],
  ldflags: "",
  binaries: [path.join(BIN, "gatekeeper-objects.d", "gatekeeper-objects")],
  coldEstimate: "about 6 minutes",
};

/** The engine CRD files under crds/, one engine per folder. */
export const ENGINE_CRD_FILES = {
  gatekeeper: ["gatekeeper/templates.gatekeeper.sh_constrainttemplates.yaml"],
  kyverno: [
    "kyverno/kyverno.io_clusterpolicies.yaml",
    "kyverno/kyverno.io_policies.yaml",
    "kyverno/policies.kyverno.io_validatingpolicies.yaml",
    "kyverno/policies.kyverno.io_mutatingpolicies.yaml",
  ],
  kubewarden: [
    "kubewarden/policies.kubewarden.io_admissionpolicies.yaml",
    "kubewarden/policies.kubewarden.io_clusteradmissionpolicies.yaml",
    "kubewarden/policies.kubewarden.io_admissionpolicygroups.yaml",
    "kubewarden/policies.kubewarden.io_clusteradmissionpolicygroups.yaml",
    "kubewarden/policies.kubewarden.io_policyservers.yaml",
  ],
} as const;

/**
 * Each controller-gen run: the packages and options the engine's own Makefile passes
 * (gatekeeper: frameworks/constraint's `manifests` target; kyverno: `codegen-crds-kyverno` and
 * `codegen-crds-policies`), and which of its outputs are kept.
 */
const RUNS: ReadonlyArray<{ dir: string; args: string[]; keep: string[] }> = [
  {
    dir: "gatekeeper",
    args: [
      "crd:allowDangerousTypes=true",
      "paths=github.com/open-policy-agent/frameworks/constraint/pkg/apis/templates/...",
    ],
    keep: ["templates.gatekeeper.sh_constrainttemplates.yaml"],
  },
  {
    dir: "kyverno",
    args: [
      "paths=github.com/kyverno/kyverno/api/kyverno/v1/...",
      "crd:crdVersions=v1,ignoreUnexportedFields=true,generateEmbeddedObjectMeta=false",
    ],
    keep: ["kyverno.io_clusterpolicies.yaml", "kyverno.io_policies.yaml"],
  },
  {
    dir: "kyverno",
    args: [
      "paths=github.com/kyverno/api/api/policies.kyverno.io/...",
      "crd:crdVersions=v1,ignoreUnexportedFields=true,generateEmbeddedObjectMeta=false",
    ],
    keep: [
      "policies.kyverno.io_validatingpolicies.yaml",
      "policies.kyverno.io_mutatingpolicies.yaml",
    ],
  },
];

function run(cmd: string, args: string[], input?: string, cwd = ENGINE_CRDS_DIR): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { cwd, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${path.basename(cmd)} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Builds controller-gen and gatekeeper-objects unless the cached builds are current. */
export async function ensureEngineTools(log?: (line: string) => void): Promise<void> {
  await ensureGoTools(CONTROLLER_GEN, log);
  await ensureGoTools(GATEKEEPER_OBJECTS, log);
}

/**
 * Writes every generated file under `out` (the same layout as crds/): the controller-gen CRDs,
 * Gatekeeper's validating webhook configuration from its own manifest (deploy/gatekeeper.yaml of
 * the gatekeeper module), and gatekeeper-objects' output for demo/gatekeeper-policies.yaml.
 */
export async function generateEngineCrds(
  out: { crds: string; seed: string },
  log?: (line: string) => void,
): Promise<void> {
  await ensureEngineTools(log);
  for (const r of RUNS) {
    const tmp = mkdtempSync(path.join(tmpdir(), "controller-gen-"));
    await run(CONTROLLER_GEN.binaries[0] as string, [
      ...r.args,
      `output:crd:artifacts:config=${tmp}`,
    ]);
    mkdirSync(path.join(out.crds, r.dir), { recursive: true });
    const made = new Set(readdirSync(tmp));
    for (const f of r.keep) {
      if (!made.has(f)) throw new Error(`controller-gen did not write ${f}`);
      writeFileSync(path.join(out.crds, r.dir, f), readFileSync(path.join(tmp, f)));
    }
    rmSync(tmp, { recursive: true, force: true });
  }
  mkdirSync(out.seed, { recursive: true });
  // Where Go keeps Gatekeeper's module (downloaded by the build of gatekeeper-objects).
  const gatekeeper = (
    await run(
      "go",
      ["list", "-m", "-f", "{{.Dir}}", "github.com/open-policy-agent/gatekeeper/v3"],
      undefined,
      GATEKEEPER_OBJECTS_DIR,
    )
  ).trim();
  const manifest = readFileSync(path.join(gatekeeper, "deploy", "gatekeeper.yaml"), "utf8");
  const vwc = manifest
    .split(/^---$/m)
    .find((d) => /^kind: ValidatingWebhookConfiguration$/m.test(d));
  if (!vwc) throw new Error("deploy/gatekeeper.yaml holds no ValidatingWebhookConfiguration");
  writeFileSync(
    path.join(out.seed, "gatekeeper-validating-webhook-configuration.yaml"),
    "---" + vwc.replace(/\s*$/, "\n"),
  );
  const policies = readFileSync(path.join(SEED_DIR, "gatekeeper-policies.yaml"), "utf8");
  const objects = await run(
    GATEKEEPER_OBJECTS.binaries[0] as string,
    [],
    policies + "\n---\n" + vwc,
  );
  writeFileSync(path.join(out.seed, "gatekeeper-generated.yaml"), objects);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const started = Date.now();
  generateEngineCrds({ crds: CRDS_DIR, seed: SEED_DIR })
    .then(() => {
      process.stderr.write(
        `engine-crds: generated in ${Math.round((Date.now() - started) / 1000)} s\n`,
      );
    })
    .catch((e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    });
}
