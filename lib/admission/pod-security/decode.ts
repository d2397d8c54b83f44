/**
 * A pod's metadata and spec (or a pod template's) from decoded JSON, as the checks read them
 * (types.ts): a field of another type than the API's is read as absent, as is JSON null (Go
 * decodes null into a nil pointer or an empty value). The apiserver refuses a pod with a field of
 * the wrong type while decoding it, before admission, so such a pod never reaches PodSecurity.
 */
import { isObject } from "../validate/json";
import type { AppArmorProfile, Container, PodMeta, PodSpec, Volume } from "./types";

type Shape =
  | "bool"
  | "number"
  | "string"
  | "any"
  | { readonly list: Shape }
  | { readonly map: "string" }
  | { readonly fields: Readonly<Record<string, Shape>> };

function narrow(v: unknown, shape: Shape): unknown {
  if (v === null || v === undefined) return undefined;
  if (shape === "any") return v;
  if (shape === "bool") return typeof v === "boolean" ? v : undefined;
  if (shape === "number") return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  if (shape === "string") return typeof v === "string" ? v : undefined;
  if ("list" in shape) {
    if (!Array.isArray(v)) return undefined;
    // (A null element decodes to the zero value: an empty object, or "" for a string.)
    return v.map(
      (x) => narrow(x ?? (shape.list === "string" ? "" : {}), shape.list) ?? zero(shape.list),
    );
  }
  if (!isObject(v)) return undefined;
  if ("map" in shape) {
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(shape.fields)) {
    const x = narrow(v[k], s);
    if (x !== undefined) out[k] = x;
  }
  return out;
}

function zero(shape: Shape): unknown {
  if (shape === "string") return "";
  if (typeof shape === "object" && "fields" in shape) return {};
  return undefined;
}

const profile: Shape = { fields: { type: "string", localhostProfile: "string" } };
const seLinux: Shape = {
  fields: { user: "string", role: "string", type: "string", level: "string" },
};
const windows: Shape = { fields: { hostProcess: "bool" } };
const handler: Shape = {
  fields: {
    httpGet: { fields: { host: "string" } },
    tcpSocket: { fields: { host: "string" } },
    exec: "any",
    grpc: "any",
    sleep: "any",
  },
};
const container: Shape = {
  fields: {
    name: "string",
    image: "string",
    ports: { list: { fields: { hostPort: "number", containerPort: "number" } } },
    securityContext: {
      fields: {
        privileged: "bool",
        capabilities: { fields: { add: { list: "string" }, drop: { list: "string" } } },
        seLinuxOptions: seLinux,
        windowsOptions: windows,
        runAsUser: "number",
        runAsNonRoot: "bool",
        allowPrivilegeEscalation: "bool",
        procMount: "string",
        seccompProfile: profile,
        appArmorProfile: profile,
      },
    },
    livenessProbe: handler,
    readinessProbe: handler,
    startupProbe: handler,
    lifecycle: { fields: { postStart: handler, preStop: handler } },
  },
};
const spec: Shape = {
  fields: {
    hostNetwork: "bool",
    hostPID: "bool",
    hostIPC: "bool",
    hostUsers: "bool",
    securityContext: {
      fields: {
        seLinuxOptions: seLinux,
        windowsOptions: windows,
        runAsUser: "number",
        runAsNonRoot: "bool",
        sysctls: { list: { fields: { name: "string", value: "string" } } },
        seccompProfile: profile,
        appArmorProfile: profile,
      },
    },
    initContainers: { list: container },
    containers: { list: container },
    ephemeralContainers: { list: container },
    os: { fields: { name: "string" } },
    runtimeClassName: "string",
  },
};
const meta: Shape = { fields: { name: "string", annotations: { map: "string" } } };

/**
 * A volume: its name, and every other key as decoded (the source). `SetDefaults_Volume`: a
 * volume without a source is an emptyDir.
 */
function volume(v: unknown): Volume {
  if (!isObject(v)) return { emptyDir: {} };
  const out: Record<string, unknown> = {};
  let sources = 0;
  for (const [k, x] of Object.entries(v))
    if (k === "name") {
      if (typeof x === "string") out[k] = x;
    } else if (x !== null && x !== undefined) {
      out[k] = x;
      sources++;
    }
  if (sources === 0) out["emptyDir"] = {};
  return out as Volume;
}

/** `defaultHostNetworkPorts`: with host networking, a port's hostPort defaults to its containerPort. */
function hostNetworkPorts(containers: readonly Container[] | undefined): Container[] | undefined {
  return containers?.map((c) =>
    c.ports
      ? {
          ...c,
          ports: c.ports.map((p) => (p.hostPort ? p : { ...p, hostPort: p.containerPort ?? 0 })),
        }
      : c,
  );
}

const APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/";

/** `podutil.ApparmorFieldForAnnotation`, kept only when it validates. */
function appArmorField(annotation: string): AppArmorProfile | undefined {
  if (annotation === "unconfined") return { type: "Unconfined" };
  if (annotation === "runtime/default") return { type: "RuntimeDefault" };
  if (!annotation.startsWith("localhost/")) return undefined;
  const profile = annotation.slice("localhost/".length);
  // (`ValidateAppArmorProfileField`: set, not padded with whitespace, at most 4,095 bytes.)
  if (profile === "" || profile.trim() !== profile || Buffer.byteLength(profile) > 4095)
    return undefined;
  return { type: "Localhost", localhostProfile: profile };
}

/**
 * `applyAppArmorVersionSkew` (the pod strategy's PrepareForCreate, before validating admission):
 * a container's deprecated AppArmor annotation becomes its securityContext.appArmorProfile when
 * the container sets none and it differs from the pod's (not on Windows pods).
 */
function appArmorFromAnnotations(meta: PodMeta, s: PodSpec): PodSpec {
  if (s.os?.name === "windows") return s;
  const pod = s.securityContext?.appArmorProfile;
  const same = (a: AppArmorProfile, b: AppArmorProfile | undefined) =>
    b !== undefined && a.type === (b.type ?? "") && a.localhostProfile === b.localhostProfile;
  const sync = (list: readonly Container[] | undefined) =>
    list?.map((c) => {
      const annotation = meta.annotations?.[`${APPARMOR_ANNOTATION}${c.name ?? ""}`];
      if (annotation === undefined || c.securityContext?.appArmorProfile !== undefined) return c;
      const field = appArmorField(annotation);
      if (!field || same(field, pod)) return c;
      return { ...c, securityContext: { ...c.securityContext, appArmorProfile: field } };
    });
  return {
    ...s,
    initContainers: sync(s.initContainers),
    containers: sync(s.containers),
    ephemeralContainers: sync(s.ephemeralContainers),
  };
}

/**
 * The metadata and spec of a pod (or pod template) object, as the checks read them once the
 * apiserver has defaulted and prepared them (before validating admission): a volume without a
 * source is an emptyDir; a pod (not a template) on the host network has its containers' ports as
 * host ports; a pod being created has its containers' AppArmor annotations as fields.
 */
export function decodePod(
  metadata: unknown,
  podSpec: unknown,
  kind: "pod" | "created-pod" | "template" = "pod",
): { meta: PodMeta; spec: PodSpec } {
  let s = (narrow(podSpec, spec) ?? {}) as PodSpec;
  const vols = isObject(podSpec) ? podSpec["volumes"] : undefined;
  if (Array.isArray(vols)) s = { ...s, volumes: vols.map(volume) };
  if (kind !== "template" && s.hostNetwork === true)
    s = {
      ...s,
      containers: hostNetworkPorts(s.containers),
      initContainers: hostNetworkPorts(s.initContainers),
    };
  const m = (narrow(metadata, meta) ?? {}) as PodMeta;
  return { meta: m, spec: kind === "created-pod" ? appArmorFromAnnotations(m, s) : s };
}
