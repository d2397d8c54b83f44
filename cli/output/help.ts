/** Usage text for `portcullis help [COMMAND]` and usage errors. */

const GLOBAL = `Global flags:
  -o, --output text|json   output format (default text; json is a stable schema, see README)
      --context NAME       read live state through this kubeconfig context
      --kubeconfig FILE    kubeconfig to use (default: KUBECONFIG, then ~/.kube/config)
  -h, --help               this help`;

const TEXT = {
  validate: `Usage: portcullis validate FILE|DIR|- ... [--context NAME] [-o text|json]

Validates admission configuration (webhook configurations, admission policies and bindings,
legacy v1beta1 webhooks and InitializerConfiguration) as a v1.37 apiserver would: strict
decoding, defaulting and validation, with file, line, column and field path for every error.
Other kinds are skipped with a notice. With --context, files are checked as updates of the
stored objects (ratcheting applies); without files, the cluster's stored objects are checked.

Exit: 0 all valid, 1 something invalid, 2 usage error or unreadable input.`,
  lint: `Usage: portcullis lint FILE|DIR ... [--namespaces FILE] [--fail-on critical|high|medium]
                      [--admission-manifests DIR]... [--context NAME] [-o text|json]

Runs the admission risk checks L1-L19 that can be decided offline (with --context, the
cluster's namespaces, discovery, services and pods let the others run too).
  --namespaces FILE   v1 Namespace objects (with labels) for the selector-dependent checks
  --fail-on LEVEL     lowest severity that fails the run (default high)
  --admission-manifests DIR
                      an apiserver's static manifest directory (staticManifestsDir; repeat
                      for each plugin; Plugin=DIR names the plugin): its hooks and policies join
                      the checks, loaded as the apiserver loads them

Exit: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or input error.`,
  predict: `Usage: portcullis predict --config DIR --object FILE --operation CREATE|UPDATE|DELETE|CONNECT
                         [--old-object FILE] [--subresource NAME] [--resource RES]
                         [--namespace NS] [--name NAME] [--dry-run]
                         [--namespace-labels k=v,...] [--namespaces FILE]
                         [--admission-config FILE] [--admission-manifests DIR]...
                         [--user NAME [--group G]...] [--context NAME] [-o text|json]

Predicts the admission calls for one request: mutating policies and webhooks in order (and a
possible reinvocation round), validating policies and webhooks, every skipped hook with its
reason, and the worst-case latency admission adds.
  --object FILE       the request body; for DELETE the object being deleted; for a
                      subresource (scale, status, exec, ...) the subresource's body
  --resource RES      RESOURCE[.GROUP] or GROUP/VERSION/RESOURCE when the kind does not say
  --namespace-labels  labels of the request's namespace (default: from --namespaces, Namespace
                      objects in --config, or the cluster)
  --admission-config  the apiserver's AdmissionConfiguration file: the PodSecurity plugin's
                      defaults and exemptions (without it the verdict assumes the built-in ones)
  --context NAME      without --config, the cluster's configuration; always its namespaces,
                      discovery and (without --user) the context's identity
  --admission-manifests DIR
                      an apiserver's static manifest directory (repeatable; Plugin=DIR names
                      the plugin): its hooks and policies run first within their plugin, and
                      static webhooks see admission configuration writes

Exit: 0 admitted as far as admission is concerned, 1 rejected by admission, 2 usage or input
error.`,
  test: `Usage: portcullis test FILE|DIR ... [--config DIR]... [--context NAME [--dry-run]]
                      [--namespaces FILE] [--admission-config FILE]
                      [--admission-manifests DIR]... [--run REGEX] [--junit FILE] [-o text|json]
       portcullis test import --from kat|kaptest PATH [--out FILE]

Runs admission test suites (apiVersion portcullis.dev/v1alpha1, kind AdmissionTestSuite; see
docs/admission-tests.md) against the whole admission chain: which hooks and policies each
request reaches or skips and why, in which order, what the admission policies decide and the
object the mutating policies leave. Expectations that only a webhook can answer are checked with
--dry-run, and cases nothing offline decides are reported as skipped.
  --config DIR        configuration files or directories (default: each suite's own
                      configuration, or the cluster's with --context)
  --context NAME      the cluster's configuration, namespaces, discovery and identity
  --dry-run           also send each case as a server-side dry run as the context's identity,
                      when every webhook it may reach declares sideEffects None or
                      NoneOnDryRun (the others are listed as not sent, with why)
  --run REGEX         only the cases whose name matches
  --junit FILE        also write the results as JUnit XML
  import              write another tool's tests as a suite (kat: a policy directory with
                      tests/; kaptest: its test manifest) and report what did not map

Exit: 0 every case passed or was skipped, 1 a case failed, 2 usage or input error.`,
} as const;

/** Help for one command, or the overview. */
export function helpText(topic: keyof typeof TEXT | undefined): string {
  if (topic) return `${TEXT[topic]}\n\n${GLOBAL}\n`;
  return `portcullis: validate, lint, predict and test Kubernetes admission configuration offline

Usage: portcullis COMMAND [flags]

Commands:
  validate   check configuration as the apiserver would, with positions
  lint       risk findings L1-L19 (deadlocks, fail-open, wildcards, ...)
  predict    which hooks a request reaches, in which order, and why others are skipped
  test       run admission test suites against a configuration or a cluster
  help CMD   flags of one command

${GLOBAL}
`;
}
