/**
 * The Pod Security Standards as the apiserver's PodSecurity admission plugin evaluates them
 * (k8s.io/pod-security-admission, `policy/`): the shapes every check reads, and the helpers the
 * checks share. A check reads a pod's metadata and spec as decoded JSON, narrowed to the fields
 * the standards look at; anything of another type is read as absent (the apiserver refuses such
 * a pod while decoding it, before admission).
 */

export type Level = "privileged" | "baseline" | "restricted";

/** `api.Version`: v1.N, or latest (newer than every numbered version). */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly latest: boolean;
}

export const v1 = (minor: number): Version => ({ major: 1, minor, latest: false });
export const LATEST: Version = { major: 0, minor: 0, latest: true };

/** `Version.Older`. */
export function older(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.major !== b.major ? a.major < b.major : a.minor < b.minor;
}

export const versionString = (v: Version) => (v.latest ? "latest" : `v${v.major}.${v.minor}`);

/** `policy.CheckResult`. */
export interface CheckResult {
  readonly allowed: boolean;
  readonly forbiddenReason?: string;
  readonly forbiddenDetail?: string;
}

export const ALLOWED: CheckResult = Object.freeze({ allowed: true });

/** `metav1.ObjectMeta`, the fields the checks read. */
export interface PodMeta {
  readonly name?: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

interface SeccompProfile {
  readonly type?: string;
  readonly localhostProfile?: string;
}

export interface AppArmorProfile {
  readonly type?: string;
  readonly localhostProfile?: string;
}

export interface SELinuxOptions {
  readonly user?: string;
  readonly role?: string;
  readonly type?: string;
  readonly level?: string;
}

interface WindowsSecurityContextOptions {
  readonly hostProcess?: boolean;
}

interface Capabilities {
  readonly add?: readonly string[];
  readonly drop?: readonly string[];
}

/** `corev1.SecurityContext` (a container's). */
interface SecurityContext {
  readonly privileged?: boolean;
  readonly capabilities?: Capabilities;
  readonly seLinuxOptions?: SELinuxOptions;
  readonly windowsOptions?: WindowsSecurityContextOptions;
  readonly runAsUser?: number;
  readonly runAsNonRoot?: boolean;
  readonly allowPrivilegeEscalation?: boolean;
  readonly procMount?: string;
  readonly seccompProfile?: SeccompProfile;
  readonly appArmorProfile?: AppArmorProfile;
}

export interface Sysctl {
  readonly name?: string;
  readonly value?: string;
}

/** `corev1.PodSecurityContext`. */
interface PodSecurityContext {
  readonly seLinuxOptions?: SELinuxOptions;
  readonly windowsOptions?: WindowsSecurityContextOptions;
  readonly runAsUser?: number;
  readonly runAsNonRoot?: boolean;
  readonly sysctls?: readonly Sysctl[];
  readonly seccompProfile?: SeccompProfile;
  readonly appArmorProfile?: AppArmorProfile;
}

interface ContainerPort {
  readonly hostPort?: number;
  readonly containerPort?: number;
}

/** A probe's or lifecycle handler's action (`corev1.ProbeHandler` / `LifecycleHandler`). */
export interface Handler {
  readonly httpGet?: { readonly host?: string };
  readonly tcpSocket?: { readonly host?: string };
  readonly exec?: unknown;
  readonly grpc?: unknown;
  readonly sleep?: unknown;
}

interface Lifecycle {
  readonly postStart?: Handler;
  readonly preStop?: Handler;
}

/** `corev1.Container` (an ephemeral container's common part too). */
export interface Container {
  readonly name?: string;
  readonly image?: string;
  readonly ports?: readonly ContainerPort[];
  readonly securityContext?: SecurityContext;
  readonly livenessProbe?: Handler;
  readonly readinessProbe?: Handler;
  readonly startupProbe?: Handler;
  readonly lifecycle?: Lifecycle;
}

/** `corev1.Volume`: its name and its source (one key, e.g. hostPath, emptyDir). */
export type Volume = Readonly<Record<string, unknown>> & { readonly name?: string };

/** `corev1.PodSpec`, the fields the checks read. */
export interface PodSpec {
  readonly hostNetwork?: boolean;
  readonly hostPID?: boolean;
  readonly hostIPC?: boolean;
  readonly hostUsers?: boolean;
  readonly securityContext?: PodSecurityContext;
  readonly volumes?: readonly Volume[];
  readonly initContainers?: readonly Container[];
  readonly containers?: readonly Container[];
  readonly ephemeralContainers?: readonly Container[];
  readonly os?: { readonly name?: string };
  readonly runtimeClassName?: string;
}

export type CheckPodFn = (meta: PodMeta, spec: PodSpec) => CheckResult;

/** `policy.VersionedCheck`. */
interface VersionedCheck {
  readonly minimumVersion: Version;
  readonly checkPod: CheckPodFn;
  /** Baseline checks this (restricted) check replaces from its version on. */
  readonly overrideCheckIDs?: readonly string[];
}

/** `policy.Check`: versions strictly increasing, none latest. */
export interface Check {
  readonly id: string;
  readonly level: "baseline" | "restricted";
  readonly versions: readonly VersionedCheck[];
}

/** `visitContainers`: init containers, then containers, then ephemeral containers. */
export function visitContainers(spec: PodSpec, visit: (c: Container) => void): void {
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers])
    for (const c of list ?? []) visit(c);
}

/** `joinQuote`: `"a", "b"` (no escaping, as the Go helper). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

export const pluralize = (singular: string, plural: string, count: number) =>
  count === 1 ? singular : plural;

/**
 * A check's rule that lets a Windows pod (`spec.os.name: windows`) through: from v1.25 the
 * restricted checks of Linux-only settings do.
 */
export const exceptWindowsPods =
  (check: CheckPodFn): CheckPodFn =>
  (meta, spec) =>
    spec.os?.name === "windows" ? ALLOWED : check(meta, spec);

/** `relaxPolicyForUserNamespacePod`: `hostUsers: false`. */
const relaxPolicyForUserNamespacePod = (spec: PodSpec) => spec.hostUsers === false;

/**
 * A check's rule that lets a pod in a user namespace (`hostUsers: false`) through: from v1.35
 * the checks of root and /proc settings do.
 */
export const exceptUserNamespacePods =
  (check: CheckPodFn): CheckPodFn =>
  (meta, spec) =>
    relaxPolicyForUserNamespacePod(spec) ? ALLOWED : check(meta, spec);
