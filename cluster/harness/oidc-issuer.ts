/**
 * A real OpenID Connect issuer for tests: Dex (tools/dex, built on first use) on loopback over
 * HTTPS with a CA of its own, static password users and two static clients — the dashboard's
 * (`portcullis`) and another application's (`other-app`, whose ID tokens carry another
 * audience). The running apiserver is made to trust it by adding the issuer to its structured
 * authentication configuration (which it reloads), with usernames `oidc:<email>`; the first
 * user is bound to the local viewer role. Resolves once the apiserver accepts a Dex ID token.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import { DEX_BIN, ensureDex } from "../../tools/dex/dex";
import { createCa, issueServingCert } from "../certs";
import { httpsRequest } from "../https-json";
import { freePorts } from "../ports";
import { admin } from "./shared-dashboard";
import type { StackInfo } from "./stack";

export const OIDC_CLIENT_ID = "portcullis";
export const OTHER_CLIENT_ID = "other-app";
/** The username prefix the apiserver puts before an OIDC user's email. */
const OIDC_USERNAME_PREFIX = "oidc:";

/** Every test user's password, and its bcrypt hash (cost 10) as Dex's static passwords want it. */
export const OIDC_PASSWORD = "portcullis-oidc-test";
const PASSWORD_HASH = "$2a$10$yxa1fMB7/GlYu3ISoUCCDeWExY.Bc.SOuWA4Rhzm1WD3PRJ2rCd1O";

/** alice is bound to the viewer role; bob is known to the issuer but granted nothing. */
export const OIDC_USERS = [
  { email: "alice@example.com", username: "alice", role: "portcullis:viewer" },
  { email: "bob@example.com", username: "bob", role: undefined },
] as const;

export interface OidcIssuer {
  issuer: string;
  /** The CA (PEM file) of the issuer's serving certificate. */
  caFile: string;
  clientSecret: string;
  clientSecretFile: string;
  otherClientSecret: string;
  /** Dex's own log. */
  logFile: string;
  /** The PORTCULLIS_OIDC_* environment of a dashboard signing in through this issuer. */
  dashboardEnv: Record<string, string>;
  /** An ID token for `email` from the password grant, issued to `clientId`. */
  idToken(email: string, clientId?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface OidcIssuerOptions {
  /** The dashboard's /sign-in/oidc URL (Dex sends the browser back only to listed URLs). */
  redirectUrl: string;
  /** Dex's `expiry.idTokens` (default 1h); a short one ends sessions soon. */
  idTokenLifetime?: string;
  log?: (line: string) => void;
}

interface JwtAuthenticator {
  issuer: { url: string };
}

/** Rewrites the apiserver's authentication configuration with `change` applied to its JWT list. */
function editAuthentication(
  stack: StackInfo,
  change: (jwt: JwtAuthenticator[]) => JwtAuthenticator[],
): void {
  const file = stack.authenticationConfig;
  const doc = parse(readFileSync(file, "utf8")) as { jwt?: JwtAuthenticator[] };
  doc.jwt = change(doc.jwt ?? []);
  // In place, one write: the apiserver watches this file (inotify) and reloads what it reads.
  writeFileSync(file, stringify(doc));
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Starts Dex, makes the stack's apiserver trust it, and waits until it does. */
export async function startOidcIssuer(
  stack: StackInfo,
  opts: OidcIssuerOptions,
): Promise<OidcIssuer> {
  const log = opts.log ?? (() => undefined);
  await ensureDex(log);
  const dir = mkdtempSync(path.join(stack.dir, "oidc-"));
  const ca = createCa(dir, "portcullis-oidc-test-ca");
  const cert = issueServingCert(dir, ca, "dex");
  const [port] = (await freePorts(1)) as [number];
  const issuer = `https://127.0.0.1:${port}/dex`;
  const clientSecret = randomBytes(24).toString("hex");
  const otherClientSecret = randomBytes(24).toString("hex");
  const clientSecretFile = path.join(dir, "client-secret");
  writeFileSync(clientSecretFile, clientSecret, { mode: 0o600 });

  const config = {
    issuer,
    storage: { type: "memory" },
    web: { https: `127.0.0.1:${port}`, tlsCert: cert.certFile, tlsKey: cert.keyFile },
    logger: { level: "info", format: "json" },
    expiry: { idTokens: opts.idTokenLifetime ?? "1h", signingKeys: "6h" },
    oauth2: {
      responseTypes: ["code"],
      skipApprovalScreen: true,
      // The password grant lets the harness (and tests) get ID tokens without a browser.
      passwordConnector: "local",
    },
    enablePasswordDB: true,
    staticPasswords: OIDC_USERS.map((u) => ({
      email: u.email,
      hash: PASSWORD_HASH,
      username: u.username,
      userID: `${u.username}-id`,
    })),
    staticClients: [
      {
        id: OIDC_CLIENT_ID,
        name: "Portcullis",
        secret: clientSecret,
        redirectURIs: [opts.redirectUrl],
      },
      {
        id: OTHER_CLIENT_ID,
        name: "Another application",
        secret: otherClientSecret,
        redirectURIs: ["http://127.0.0.1:1/callback"],
      },
    ],
  };
  const configFile = path.join(dir, "dex.yaml");
  writeFileSync(configFile, stringify(config), { mode: 0o600 });
  const logFile = path.join(dir, "dex.log");
  const fd = openSync(logFile, "a");
  const child = spawn(DEX_BIN, ["serve", configFile], { stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killDex = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  const caPem = readFileSync(ca.certFile, "utf8");

  const idToken = async (email: string, clientId: string = OIDC_CLIENT_ID): Promise<string> => {
    const secret = clientId === OIDC_CLIENT_ID ? clientSecret : otherClientSecret;
    const res = await fetchDex(`${issuer}/token`, caPem, {
      body: form({
        grant_type: "password",
        username: email,
        password: OIDC_PASSWORD,
        scope: "openid email profile",
      }),
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
    });
    if (res.status !== 200) throw new Error(`Dex password grant: ${res.status} ${res.body}`);
    return (JSON.parse(res.body) as { id_token: string }).id_token;
  };

  const stop = async () => {
    editAuthentication(stack, (jwt) => jwt.filter((j) => j.issuer.url !== issuer));
    await killDex();
  };

  try {
    // Dex is up once it serves its discovery document.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) {
        throw new Error(`Dex exited with code ${child.exitCode}: ${readFileSync(logFile, "utf8")}`);
      }
      const res = await fetchDex(`${issuer}/.well-known/openid-configuration`, caPem).catch(
        () => undefined,
      );
      if (res?.status === 200) break;
      if (Date.now() > deadline)
        throw new Error("Dex did not serve its discovery document in 30 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    log(`oidc: Dex serving ${issuer}`);

    for (const u of OIDC_USERS) {
      if (!u.role) continue;
      const name = `portcullis-oidc-${u.username}-${port}`;
      await admin(stack, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: u.role },
        subjects: [
          {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "User",
            name: `${OIDC_USERNAME_PREFIX}${u.email}`,
          },
        ],
      });
    }

    editAuthentication(stack, (jwt) => [
      ...jwt.filter((j) => j.issuer.url !== issuer),
      {
        issuer: { url: issuer, audiences: [OIDC_CLIENT_ID], certificateAuthority: caPem },
        claimMappings: { username: { claim: "email", prefix: OIDC_USERNAME_PREFIX } },
      } as JwtAuthenticator,
    ]);

    // The apiserver reloads the file when it changes (and polls it every minute besides).
    // A fresh token every few seconds: a short lifetime (idTokenLifetime) can end before the
    // apiserver has taken the new issuer in, and an expired token is refused whatever it knows.
    let token = await idToken(OIDC_USERS[0].email);
    let tokenAt = Date.now();
    const started = Date.now();
    const want = `${OIDC_USERNAME_PREFIX}${OIDC_USERS[0].email}`;
    for (;;) {
      if (Date.now() - tokenAt > 3_000) {
        token = await idToken(OIDC_USERS[0].email);
        tokenAt = Date.now();
      }
      const res = await httpsRequest(
        `${stack.server}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
        {
          method: "POST",
          ca: readFileSync(stack.caFile),
          token,
          body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        },
      );
      if (res.status === 201 && res.body.includes(JSON.stringify(want))) break;
      if (Date.now() - started > 150_000) {
        throw new Error(`the apiserver did not accept Dex's ID token in 150 s: ${res.status}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    log(`oidc: the apiserver accepts ${issuer}'s ID tokens after ${Date.now() - started} ms`);
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    issuer,
    caFile: ca.certFile,
    clientSecret,
    clientSecretFile,
    otherClientSecret,
    logFile,
    dashboardEnv: {
      PORTCULLIS_OIDC_ISSUER_URL: issuer,
      PORTCULLIS_OIDC_CLIENT_ID: OIDC_CLIENT_ID,
      PORTCULLIS_OIDC_REDIRECT_URL: opts.redirectUrl,
      PORTCULLIS_OIDC_CLIENT_SECRET_FILE: clientSecretFile,
      PORTCULLIS_OIDC_CA_FILE: ca.certFile,
    },
    idToken,
    stop,
  };
}

/** A request to Dex trusting only its test CA. */
export async function fetchDex(
  url: string,
  caPem: string,
  o: { body?: string; authorization?: string; cookie?: string } = {},
): Promise<{
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}> {
  const { request } = await import("node:https");
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: o.body === undefined ? "GET" : "POST",
        ca: caPem,
        headers: {
          ...(o.body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
          ...(o.authorization ? { authorization: o.authorization } : {}),
          ...(o.cookie ? { cookie: o.cookie } : {}),
        },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            headers: res.headers,
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url}`)));
    req.on("error", reject);
    req.end(o.body);
  });
}
