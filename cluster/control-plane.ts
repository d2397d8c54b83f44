/**
 * Starts a real control plane on loopback: etcd, kube-apiserver (RBAC, static tokens for an
 * admin, a viewer and an editor, audit policy + audit webhook + audit log, every admission API
 * version served, a structured authentication configuration that OIDC issuers can be added to at
 * run time) and kube-controller-manager (so namespaces get their default ServiceAccount
 * and deleted namespaces go away), and writes a kubeconfig with one context per user.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from "node:fs";
import path from "node:path";
import { controlPlaneBinaries, NEWEST_MINOR, type ControlPlaneMinor } from "./build";
import { createCa, createServiceAccountKeys, issueServingCert, type CertPair } from "./certs";
import { freePorts } from "./ports";
import { httpsRequest } from "./https-json";
import { startAuditRelay, type AuditRelay } from "./audit-relay";
import { startTraceSink, type TraceSink } from "./trace-sink";
import { writeAdmissionConfiguration } from "./admission-config";
import type { StaticManifestDirs } from "./admission-config/manifests";
import type { PodSecurityOverride } from "./admission-config/pod-security";
import { AGGREGATED_VIEWER_ROLE, rbacObjects, USERS, type UserName } from "./rbac";

export interface ControlPlaneInfo {
  /** Directory holding certificates, configs, logs and etcd data of this run. */
  dir: string;
  kubeconfig: string;
  server: string;
  caFile: string;
  caKeyFile: string;
  tokens: Record<UserName, string>;
  /** The kubeconfig context of each user. */
  contexts: Record<UserName, string>;
  auditToken: string;
  auditLogPath: string;
  /** Where the apiserver sends its audit batches: the relay's port, or the dashboard's own listener's. */
  auditRelayPort: number;
  /**
   * Set when the apiserver authenticates to the dashboard's own TLS listener with a client
   * certificate (`auditSink: "client-certificate"`): what that listener is started with.
   */
  auditTls?: AuditTlsFiles;
  /**
   * Where the apiserver exports its traces (OTLP/gRPC, every span sampled): the dashboard's
   * trace receiver listens here (PORTCULLIS_OTLP_LISTEN).
   */
  otlpListen: string;
  /**
   * The apiserver's structured authentication configuration (--authentication-config). It starts
   * with no JWT issuer; the apiserver reloads the file when it changes, so a test harness adds an
   * OIDC issuer to a running control plane by rewriting it (cluster/harness/oidc-issuer.ts).
   */
  authenticationConfig: string;
  /**
   * The apiserver's AdmissionConfiguration (--admission-control-config-file): the PodSecurity
   * plugin's defaults and exemptions among others. The dashboard reads it as
   * PORTCULLIS_ADMISSION_CONFIG, the command line as --admission-config.
   */
  admissionConfigFile: string;
  /**
   * Each admission plugin's static manifest directory (its `staticManifestsDir`), seeded with a
   * set scoped by STATIC_SCOPE_LABEL (cluster/admission-config/manifests.ts). The apiserver
   * reloads a directory when its files change: see cluster/harness/static-manifests.ts. Absent
   * on a minor without manifest-based admission on by default (before 1.37).
   */
  admissionManifests?: StaticManifestDirs;
  /** The Kubernetes minor of the binaries (StartOptions.minor). */
  minor: ControlPlaneMinor;
  dashboardUrl: string;
  version: string;
  pids: number[];
}

/** The dashboard's audit TLS listener and the client certificate the apiserver presents to it. */
export interface AuditTlsFiles {
  /** PORTCULLIS_AUDIT_TLS_LISTEN */
  listen: string;
  /** Its serving certificate and key (signed by the run's CA, which the apiserver trusts). */
  certFile: string;
  keyFile: string;
  /** The CA of audit client certificates (a CA of its own) and its key, to issue more. */
  clientCaFile: string;
  clientCaKeyFile: string;
  /** The apiserver's client certificate: its common name, certificate and key. */
  clientName: string;
  clientCertFile: string;
  clientKeyFile: string;
}

export interface ControlPlane extends ControlPlaneInfo {
  stop(): Promise<void>;
  /**
   * No dashboard takes what the apiserver sends it from now on (none runs, or it is about to
   * stop): an audit batch it does not take is dropped instead of retried, and once the trace
   * receiver's address is free a sink takes the spans. The apiserver's exit waits for every
   * batch it is still retrying (about 16 s of pauses each) and for its last span export (10 s),
   * past its grace.
   */
  drain(): void;
}

export interface StartOptions {
  /** Where the dashboard listens; the audit webhook is relayed to `${dashboardUrl}/api/audit`. */
  dashboardUrl: string;
  /** Parent of this run's directory. */
  baseDir: string;
  /** Keep the run directory after stop (for inspection). */
  keepDir?: boolean;
  log?: (line: string) => void;
  /**
   * How the apiserver's audit webhook reaches the dashboard: "relay" (the default) through the
   * TLS relay with the bearer token; "client-certificate" straight to the dashboard's own TLS
   * listener (started from `auditTls`), presenting a client certificate and no token.
   */
  auditSink?: "relay" | "client-certificate";
  /**
   * The PodSecurity plugin's defaults and exemptions, instead of the local control plane's
   * (cluster/admission-config/pod-security.ts): only for a control plane of a test's own, since
   * any other default changes what every other test sees.
   */
  podSecurity?: PodSecurityOverride;
  /**
   * The Kubernetes minor to run (its binaries built with `npm run cluster:build -- --minor`):
   * the newest by default. An older minor runs with that minor's defaults, except that every
   * admission API version it has is served and MutatingAdmissionPolicy is on (1.35: beta, off by
   * default); static manifest directories are configured from 1.37 on only (the
   * ManifestBasedAdmissionControlConfig gate is alpha and off in 1.36, absent in 1.35).
   */
  minor?: ControlPlaneMinor;
}

/** Whether `minor` loads static admission manifests by default (ManifestBasedAdmissionControlConfig beta in 1.37). */
export function servesStaticManifests(minor: ControlPlaneMinor): boolean {
  return Number(minor.split(".")[1]) >= 37;
}

interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

// Children still alive when this process exits (a crash, an uncaught error) are killed with it,
// so no apiserver or etcd outlives its launcher.
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

function startProcess(name: string, bin: string, args: string[], logFile: string): Proc {
  const fd = openSync(logFile, "a");
  // A process group of its own: a terminal's Ctrl-C reaches only the launcher, which stops the
  // apiserver before etcd (etcd stopped first leaves the apiserver hanging).
  const child = spawn(bin, args, { stdio: ["ignore", fd, fd], detached: true });
  closeSync(fd);
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  child.on("error", () => undefined);
  return { name, child, exited };
}

async function stopProcess(p: Proc, graceMs: number): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => p.child.kill("SIGKILL"), graceMs);
  await p.exited;
  clearTimeout(timer);
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function waitFor(
  what: string,
  proc: Proc,
  logFile: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) {
      throw new Error(`${what} exited with code ${proc.child.exitCode}:\n${tail(logFile)}`);
    }
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} was not ready after ${timeoutMs / 1000} s:\n${tail(logFile)}`);
}

/**
 * The audit policy the Helm chart hands to admins (writes only; Request level for admission
 * configuration): the local apiserver runs with the very same file, so the decision feed's tests
 * prove what the chart ships.
 */
const AUDIT_POLICY_FILE = path.join(
  import.meta.dirname,
  "..",
  "deploy",
  "chart",
  "portcullis",
  "files",
  "audit-policy.yaml",
);

/** The authentication configuration the apiserver starts with: no JWT issuer yet. */
const AUTHENTICATION_CONFIG_EMPTY = [
  "apiVersion: apiserver.config.k8s.io/v1",
  "kind: AuthenticationConfiguration",
  "jwt: []",
  "",
].join("\n");

function kubeconfigYaml(
  server: string,
  caFile: string,
  users: Array<{ name: string; token: string }>,
  current: string,
): string {
  const lines = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "  - name: portcullis-local",
    "    cluster:",
    `      server: ${server}`,
    `      certificate-authority: ${caFile}`,
    "users:",
    ...users.flatMap((u) => [`  - name: ${u.name}`, "    user:", `      token: ${u.token}`]),
    "contexts:",
    ...users.flatMap((u) => [
      `  - name: ${u.name}@portcullis-local`,
      "    context:",
      "      cluster: portcullis-local",
      `      user: ${u.name}`,
    ]),
    `current-context: ${current}@portcullis-local`,
    "",
  ];
  return lines.join("\n");
}

function isAddressInUse(e: unknown): boolean {
  return e instanceof Error && /address already in use/i.test(e.message);
}

/** Starts the control plane, retrying once on a port clash. */
export async function startControlPlane(opts: StartOptions): Promise<ControlPlane> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (e) {
      if (attempt < 3 && isAddressInUse(e)) continue;
      throw e;
    }
  }
}

async function startOnce(opts: StartOptions): Promise<ControlPlane> {
  const log = opts.log ?? (() => undefined);
  const minor = opts.minor ?? NEWEST_MINOR;
  const BINARIES = controlPlaneBinaries(minor);
  const started = Date.now();
  const dir = path.join(opts.baseDir, `run-${Date.now()}-${randomBytes(3).toString("hex")}`);
  mkdirSync(dir, { recursive: true });
  const procs: Proc[] = [];
  let relay: AuditRelay | undefined;

  let otlpPort: number | undefined;
  let sink: TraceSink | undefined;
  let sinkTried: Promise<void> = Promise.resolve();
  /** Starts the span sink unless it runs or the address is taken (the dashboard still runs). */
  const takeSpans = (): Promise<void> =>
    (sinkTried = sinkTried.then(async () => {
      if (sink || otlpPort === undefined) return;
      sink = await startTraceSink("127.0.0.1", otlpPort).catch(() => undefined);
    }));
  const drain = () => {
    relay?.drain();
    void takeSpans();
  };
  const stopAll = async () => {
    // The relay and the sink stay up until the apiserver has exited, taking what no dashboard
    // takes any more (see ControlPlane.drain).
    drain();
    await sinkTried;
    // The apiserver and controller manager first: with etcd gone the apiserver hangs on SIGTERM.
    await Promise.all(procs.filter((p) => p.name !== "etcd").map((p) => stopProcess(p, 10_000)));
    await Promise.all(procs.filter((p) => p.name === "etcd").map((p) => stopProcess(p, 10_000)));
    await relay?.close();
    await sink?.close();
  };

  try {
    const [etcdClient, etcdPeer, apiPort, relayPort, tracePort] = (await freePorts(5)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    // The apiserver's traces go to the dashboard's receiver; every span is kept so each webhook
    // call has one (the default rate is 0: nothing unless the caller's trace is sampled).
    otlpPort = tracePort;
    const otlpListen = `127.0.0.1:${otlpPort}`;
    const tracingConfig = path.join(dir, "tracing.yaml");
    writeFileSync(
      tracingConfig,
      [
        "apiVersion: apiserver.config.k8s.io/v1",
        "kind: TracingConfiguration",
        `endpoint: ${otlpListen}`,
        "samplingRatePerMillion: 1000000",
        "",
      ].join("\n"),
    );
    // JWT issuers (OIDC) are added at run time: the apiserver watches this file and reloads it.
    const authenticationConfig = path.join(dir, "authentication-config.yaml");
    writeFileSync(authenticationConfig, AUTHENTICATION_CONFIG_EMPTY);
    const ca = createCa(dir);
    const apiCert = issueServingCert(dir, ca, "apiserver", [
      "127.0.0.1",
      "localhost",
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
    ]);
    const relayCert: CertPair = issueServingCert(dir, ca, "audit-sink");
    let auditTls: AuditTlsFiles | undefined;
    if (opts.auditSink === "client-certificate") {
      // A CA of its own for audit clients, as a cluster's front-proxy or etcd CA is: a
      // certificate the apiserver's CA signed for anything else is no audit client.
      const clientCaDir = path.join(dir, "audit-client-ca");
      mkdirSync(clientCaDir);
      const clientCa = createCa(clientCaDir, "portcullis-audit-client-ca");
      const clientName = "kube-apiserver-audit";
      const client = issueServingCert(dir, clientCa, clientName);
      auditTls = {
        listen: `127.0.0.1:${relayPort}`,
        certFile: relayCert.certFile,
        keyFile: relayCert.keyFile,
        clientCaFile: clientCa.certFile,
        clientCaKeyFile: clientCa.keyFile,
        clientName,
        clientCertFile: client.certFile,
        clientKeyFile: client.keyFile,
      };
    }
    const sa = createServiceAccountKeys(dir);

    const tokens = Object.fromEntries(
      USERS.map((u) => [u.name, randomBytes(24).toString("hex")]),
    ) as Record<UserName, string>;
    const auditToken = randomBytes(24).toString("hex");
    const tokenFile = path.join(dir, "tokens.csv");
    // The controller manager signs in as the user its bootstrap ClusterRoleBinding names, and
    // (--use-service-account-credentials) runs each controller as that controller's own
    // ServiceAccount, as kubeadm sets it up: the pods a ReplicaSet creates are audited, admitted
    // and denied as system:serviceaccount:kube-system:replicaset-controller, not as an admin.
    const controllerManagerToken = randomBytes(24).toString("hex");
    writeFileSync(
      tokenFile,
      [
        ...USERS.map((u) => `${tokens[u.name]},${u.name},${u.name}-uid,"${u.groups.join(",")}"`),
        `${controllerManagerToken},system:kube-controller-manager,system:kube-controller-manager-uid`,
      ].join("\n") + "\n",
      { mode: 0o600 },
    );

    const admissionConfig = writeAdmissionConfiguration(dir, {
      ...(opts.podSecurity ? { podSecurity: opts.podSecurity } : {}),
      staticManifests: servesStaticManifests(minor),
    });
    const auditPolicy = path.join(dir, "audit-policy.yaml");
    writeFileSync(auditPolicy, readFileSync(AUDIT_POLICY_FILE));
    // The token sits in a file the kubeconfig names, as the Helm chart's snippet has it, so the
    // decision feed's tests prove the apiserver sends a token read that way.
    const auditTokenFile = path.join(dir, "audit.token");
    writeFileSync(auditTokenFile, auditToken, { mode: 0o600 });
    const auditWebhookConfig = path.join(dir, "audit-webhook.kubeconfig");
    writeFileSync(
      auditWebhookConfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "  - name: portcullis-audit-sink",
        "    cluster:",
        `      server: https://127.0.0.1:${relayPort}/api/audit`,
        `      certificate-authority: ${ca.certFile}`,
        "users:",
        "  - name: kube-apiserver",
        "    user:",
        ...(auditTls
          ? [
              `      client-certificate: ${auditTls.clientCertFile}`,
              `      client-key: ${auditTls.clientKeyFile}`,
            ]
          : [`      tokenFile: ${auditTokenFile}`]),
        "contexts:",
        "  - name: default",
        "    context: { cluster: portcullis-audit-sink, user: kube-apiserver }",
        "current-context: default",
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    const auditLogPath = path.join(dir, "audit.log");

    // With a client certificate the apiserver posts to the dashboard's own listener: no relay.
    if (!auditTls) {
      relay = await startAuditRelay(
        relayPort,
        relayCert,
        `${opts.dashboardUrl.replace(/\/$/, "")}/api/audit`,
      );
    }

    const etcdLog = path.join(dir, "etcd.log");
    const etcd = startProcess(
      "etcd",
      BINARIES.etcd,
      [
        "--name=portcullis",
        `--data-dir=${path.join(dir, "etcd")}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=portcullis=http://127.0.0.1:${etcdPeer}`,
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
      etcdLog,
    );
    procs.push(etcd);
    await waitFor(
      "etcd",
      etcd,
      etcdLog,
      async () => {
        const res = await fetch(`http://127.0.0.1:${etcdClient}/health`);
        return res.ok;
      },
      30_000,
    );
    log(`cluster: etcd ready on 127.0.0.1:${etcdClient}`);

    const server = `https://127.0.0.1:${apiPort}`;
    const apiLog = path.join(dir, "kube-apiserver.log");
    const api = startProcess(
      "kube-apiserver",
      BINARIES.apiserver,
      [
        `--etcd-servers=http://127.0.0.1:${etcdClient}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${apiPort}`,
        // On loopback the endpoint reconciler refuses 127.0.0.1 as a "public IP".
        "--endpoint-reconciler-type=none",
        `--tls-cert-file=${apiCert.certFile}`,
        `--tls-private-key-file=${apiCert.keyFile}`,
        `--client-ca-file=${ca.certFile}`,
        `--token-auth-file=${tokenFile}`,
        `--authentication-config=${authenticationConfig}`,
        "--authorization-mode=RBAC",
        "--anonymous-auth=false",
        `--service-account-issuer=https://kubernetes.default.svc.cluster.local`,
        `--service-account-key-file=${sa.publicKeyFile}`,
        `--service-account-signing-key-file=${sa.privateKeyFile}`,
        "--service-cluster-ip-range=10.96.0.0/16",
        // Webhooks referenced by Service are called at a ready endpoint of the Service, as a
        // cluster's network would route them; there is no pod network here to route a ClusterIP,
        // so a Service without a ready endpoint fails at once with "no endpoints available for
        // service" instead of dialling an unrouted 10.96.x.x address (which hangs until the
        // hook's timeout, or reaches whatever the host routes that range to).
        "--enable-aggregator-routing=true",
        "--runtime-config=admissionregistration.k8s.io/v1beta1=true,admissionregistration.k8s.io/v1alpha1=true",
        "--feature-gates=MutatingAdmissionPolicy=true",
        `--admission-control-config-file=${admissionConfig.file}`,
        // As kubeadm sets it: privileged containers pass object validation, so they reach
        // admission (PodSecurity, webhooks, policies) instead of being refused before it.
        "--allow-privileged=true",
        // On SIGTERM it ends the open watches (they are resumed elsewhere in a real cluster)
        // instead of waiting for their clients to close them: with its own loopback watches
        // still open the wait lasted until the 10 s grace ran out and it was killed.
        "--shutdown-watch-termination-grace-period=2s",
        `--audit-policy-file=${auditPolicy}`,
        `--audit-webhook-config-file=${auditWebhookConfig}`,
        "--audit-webhook-batch-max-wait=1s",
        // Retries of a refused batch after 2 s, 3 s, 4.5 s, … (5 tries): a dashboard restart is covered.
        "--audit-webhook-initial-backoff=2s",
        // Batches split below 10 MB (the sink refuses bodies over 16 MB), as the README advises.
        "--audit-webhook-truncate-enabled=true",
        `--audit-log-path=${auditLogPath}`,
        `--tracing-config-file=${tracingConfig}`,
        "--audit-log-format=json",
        // Rotated every megabyte (the smallest size the apiserver knows), as a busy cluster's log
        // is: the dashboard's file mode (PORTCULLIS_AUDIT_LOG) follows it across rotations.
        "--audit-log-maxsize=1",
        // Backups kept long enough that a reader stopped for a while (file mode across a restart,
        // the matching oracle reading its own requests) still finds every event; the run's
        // directory is removed with the stack.
        "--audit-log-maxbackup=100",
        `--cert-dir=${path.join(dir, "apiserver-certs")}`,
        "--v=1",
      ],
      apiLog,
    );
    procs.push(api);
    const ca_pem = readFileSync(ca.certFile);
    await waitFor(
      "kube-apiserver",
      api,
      apiLog,
      async () =>
        (
          await httpsRequest(`${server}/readyz`, {
            ca: ca_pem,
            token: tokens.admin,
            timeoutMs: 2000,
          })
        ).status === 200,
      90_000,
    );
    log(
      `cluster: kube-apiserver ready on ${server} after ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    for (const obj of rbacObjects()) {
      const res = await httpsRequest(`${server}${obj.path}`, {
        method: "POST",
        ca: ca_pem,
        token: tokens.admin,
        body: obj.body,
      });
      if (res.status !== 201 && res.status !== 409) {
        throw new Error(`creating ${obj.path} failed: ${res.status} ${res.body}`);
      }
    }

    const kubeconfig = path.join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      kubeconfigYaml(
        server,
        ca.certFile,
        USERS.map((u) => ({ name: u.name, token: tokens[u.name] })),
        "admin",
      ),
      { mode: 0o600 },
    );
    const kcmKubeconfig = path.join(dir, "controller-manager.kubeconfig");
    writeFileSync(
      kcmKubeconfig,
      kubeconfigYaml(
        server,
        ca.certFile,
        [{ name: "system:kube-controller-manager", token: controllerManagerToken }],
        "system:kube-controller-manager",
      ),
      { mode: 0o600 },
    );
    const kcmLog = path.join(dir, "kube-controller-manager.log");
    const kcm = startProcess(
      "kube-controller-manager",
      BINARIES.controllerManager,
      [
        `--kubeconfig=${kcmKubeconfig}`,
        `--service-account-private-key-file=${sa.privateKeyFile}`,
        `--root-ca-file=${ca.certFile}`,
        "--leader-elect=false",
        "--secure-port=0",
        "--use-service-account-credentials=true",
        `--controllers=namespace,serviceaccount,serviceaccount-token,endpointslice,garbagecollector,deployment,replicaset,validatingadmissionpolicy-status-controller,clusterrole-aggregation${
          // Before 1.37 the apiserver's services/proxy reads a Service's Endpoints object (1.37:
          // its EndpointSlices), which a cluster's endpoints controller keeps: without it a
          // Service with no ready endpoint answers 404 where a cluster answers 503.
          Number(minor.slice(2)) >= 37 ? "" : ",endpoint"
        }`,
        "--v=1",
      ],
      kcmLog,
    );
    procs.push(kcm);
    // The viewers' aggregated role is filled by the controller manager: wait until it is, so no
    // test reads as a viewer before its rights are in place.
    await waitFor(
      "the aggregated viewer role (kube-controller-manager)",
      kcm,
      kcmLog,
      async () => {
        const res = await httpsRequest(
          `${server}/apis/rbac.authorization.k8s.io/v1/clusterroles/${encodeURIComponent(AGGREGATED_VIEWER_ROLE)}`,
          { ca: ca_pem, token: tokens.admin, timeoutMs: 2000 },
        );
        if (res.status !== 200) return false;
        return ((JSON.parse(res.body) as { rules?: unknown[] }).rules ?? []).length > 0;
      },
      60_000,
    );

    const versionRes = await httpsRequest(`${server}/version`, { ca: ca_pem, token: tokens.admin });
    const version =
      (JSON.parse(versionRes.body) as { gitVersion?: string }).gitVersion ?? BINARIES.version;
    log(`cluster: control plane ${version} up in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const contexts = Object.fromEntries(
      USERS.map((u) => [u.name, `${u.name}@portcullis-local`]),
    ) as Record<UserName, string>;
    const info: ControlPlaneInfo = {
      dir,
      kubeconfig,
      server,
      caFile: ca.certFile,
      caKeyFile: ca.keyFile,
      tokens,
      contexts,
      auditToken,
      auditLogPath,
      auditRelayPort: relayPort,
      ...(auditTls ? { auditTls } : {}),
      otlpListen,
      authenticationConfig,
      admissionConfigFile: admissionConfig.file,
      ...(admissionConfig.manifests ? { admissionManifests: admissionConfig.manifests } : {}),
      minor,
      dashboardUrl: opts.dashboardUrl,
      version,
      pids: procs.map((p) => p.child.pid ?? -1),
    };
    return {
      ...info,
      drain,
      stop: async () => {
        await stopAll();
        if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
