/**
 * The demo's traffic: a bounded-rate stream of creates, updates and deletes of the kinds the
 * seeded hooks and policies intercept, so decisions, metrics and health keep moving. At most one
 * request starts per `intervalMs` and at most `maxInFlight` are outstanding (a slow hook never
 * piles requests up); every namespace keeps at most `keep` objects of a kind.
 */
import type { ControlPlaneInfo } from "../control-plane";
import { adminApi, TRAFFIC_NAMESPACES } from "./demo-seed";

export interface TrafficOptions {
  intervalMs?: number;
  maxInFlight?: number;
  keep?: number;
}

export interface Traffic {
  /** Requests sent so far, by HTTP status. */
  counts(): Record<number, number>;
  /** Stops starting requests and waits for the outstanding ones. */
  stop(): Promise<void>;
}

interface Kind {
  name: string;
  collection: (ns: string) => string;
  /** Only in these namespaces (default: every traffic namespace). */
  namespaces?: string[];
  body: (name: string, ns: string, rnd: () => number) => Record<string, unknown>;
  /** A change for a stored object, as a merge patch. */
  update: (rnd: () => number) => Record<string, unknown>;
}

const container = (rnd: () => number) => ({
  name: "app",
  image: `shop/app:1.${Math.floor(rnd() * 9)}`,
  // One pod in five forgets its limits: the policy engine denies those.
  ...(rnd() < 0.8 ? { resources: { limits: { cpu: "250m", memory: "256Mi" } } } : {}),
});

const relabel = (rnd: () => number) => ({
  metadata: { labels: { revision: String(Math.floor(rnd() * 1000)) } },
});

/** The kinds of objects the generator writes, in the proportions their order repeats. */
const KINDS: Kind[] = [
  {
    name: "pod",
    collection: (ns) => `/api/v1/namespaces/${ns}/pods`,
    body: (name, ns, rnd) => ({
      metadata: { name, namespace: ns, labels: { app: name.replace(/-\d+$/, "") } },
      spec: { containers: [container(rnd)] },
    }),
    update: relabel,
  },
  {
    name: "configmap",
    collection: (ns) => `/api/v1/namespaces/${ns}/configmaps`,
    body: (name, ns, rnd) => ({
      metadata: { name, namespace: ns },
      data: { "settings.yaml": `replicas: ${1 + Math.floor(rnd() * 5)}\n` },
    }),
    update: (rnd) => ({ data: { "settings.yaml": `replicas: ${1 + Math.floor(rnd() * 5)}\n` } }),
  },
  {
    name: "deployment",
    collection: (ns) => `/apis/apps/v1/namespaces/${ns}/deployments`,
    body: (name, ns, rnd) => {
      // Some deployments name no team (the policy's Deny binding refuses them in team namespaces).
      const labels: Record<string, string> = { app: name };
      if (rnd() < 0.75) labels.team = ns === "data-jobs" ? "data" : "shop";
      return {
        metadata: { name, namespace: ns, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [container(rnd)] } },
        },
      };
    },
    update: (rnd) => ({
      spec: {
        template: { metadata: { annotations: { restartedAt: String(Math.floor(rnd() * 1e6)) } } },
      },
    }),
  },
  {
    name: "service",
    namespaces: ["shop-frontend", "shop-payments"],
    collection: (ns) => `/api/v1/namespaces/${ns}/services`,
    body: (name, ns) => ({
      metadata: { name, namespace: ns },
      spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    }),
    update: relabel,
  },
  {
    name: "ingress",
    namespaces: ["shop-frontend"],
    collection: (ns) => `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
    body: (name, ns) => ({
      metadata: { name, namespace: ns },
      spec: {
        rules: [
          {
            host: `${name}.shop.internal`,
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: "web", port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    }),
    update: relabel,
  },
  {
    name: "certificate",
    namespaces: ["shop-frontend", "shop-payments"],
    collection: (ns) => `/apis/cert-manager.io/v1/namespaces/${ns}/certificates`,
    body: (name, ns) => ({
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: { name, namespace: ns },
      spec: { secretName: `${name}-tls`, dnsNames: [`${name}.shop.internal`] },
    }),
    update: relabel,
  },
];

/**
 * Requests the traffic starts with: each is refused by one of the seeded hooks or policies, whose
 * name its refusal carries (`refusedBy`). When the answer does not carry it (the policy engine's
 * hook, failurePolicy Ignore, timed out under load and the pod was created; or another refusal
 * was the one reported), the request is sent again later, so the refusal reaches the feed.
 */
const OPENING: ReadonlyArray<{
  name: string;
  collection: string;
  body: (name: string) => Record<string, unknown>;
  refusedBy: string;
}> = [
  {
    // No limits: the policy engine's webhook denies it.
    name: "web",
    refusedBy: "require-requests-limits",
    collection: "/api/v1/namespaces/shop-payments/pods",
    body: (name) => ({
      metadata: { name, namespace: "shop-payments", labels: { app: "web" } },
      spec: { containers: [{ name: "app", image: "shop/app:1.0" }] },
    }),
  },
  {
    // No team label in a team namespace: the ValidatingAdmissionPolicy's Deny binding refuses it.
    name: "deployment",
    refusedBy: "require-team-label",
    collection: "/apis/apps/v1/namespaces/shop-frontend/deployments",
    body: (name) => ({
      metadata: { name, namespace: "shop-frontend", labels: { app: name } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            containers: [
              {
                name: "app",
                image: "shop/app:1.0",
                resources: { limits: { cpu: "250m", memory: "256Mi" } },
              },
            ],
          },
        },
      },
    }),
  },
];

/** Starts generating traffic against the control plane as its admin. */
export function startTraffic(cp: ControlPlaneInfo, opts: TrafficOptions = {}): Traffic {
  const intervalMs = opts.intervalMs ?? 600;
  const maxInFlight = opts.maxInFlight ?? 4;
  const keep = opts.keep ?? 4;
  const rnd = Math.random;
  const api = adminApi(cp);
  const stored = new Map<string, string[]>(); // `${kind}/${ns}` → names, oldest first
  const counts: Record<number, number> = {};
  const inFlight = new Set<Promise<void>>();
  let serial = 0;

  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  // The first requests are ones the seeded hooks and policies refuse, so every outcome is in the
  // feed from the start rather than when chance brings it (a pod without limits is one step in
  // sixty).
  const opening = OPENING.map((o) => ({ ...o, tries: 0 }));

  const step = async () => {
    const scripted = opening.shift();
    if (scripted) {
      const res = await api(
        "POST",
        scripted.collection,
        scripted.body(`${scripted.name}-${++serial}`),
      );
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      if (!res.body.includes(scripted.refusedBy) && ++scripted.tries < 20) opening.push(scripted);
      return;
    }
    const kind = pick(KINDS);
    const ns = pick(kind.namespaces ?? TRAFFIC_NAMESPACES);
    const key = `${kind.name}/${ns}`;
    const names = stored.get(key) ?? [];
    stored.set(key, names);
    const r = rnd();
    let res;
    if (names.length >= keep || (names.length > 0 && r < 0.2)) {
      const name = names.shift() as string;
      res = await api("DELETE", `${kind.collection(ns)}/${name}`);
    } else if (names.length > 0 && r < 0.5) {
      res = await api(
        "PATCH",
        `${kind.collection(ns)}/${pick(names)}`,
        kind.update(rnd),
        "application/merge-patch+json",
      );
    } else {
      const name = `${kind.name === "pod" ? "web" : kind.name}-${++serial}`;
      res = await api("POST", kind.collection(ns), kind.body(name, ns, rnd));
      if (res.status === 201) names.push(name);
    }
    counts[res.status] = (counts[res.status] ?? 0) + 1;
  };

  const timer = setInterval(() => {
    if (inFlight.size >= maxInFlight) return;
    const p: Promise<void> = step()
      .catch(() => {
        counts[0] = (counts[0] ?? 0) + 1; // transport error (the control plane is stopping)
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, intervalMs);

  return {
    counts: () => ({ ...counts }),
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...inFlight]);
    },
  };
}
