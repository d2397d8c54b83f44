/**
 * The audit sink's TLS listener on loopback with real certificates (made with openssl): which
 * settings start it, and who it lets through. A body that is not JSON answers 400 once the sender
 * is authenticated (nothing is stored), so these tests need no decision store; storing the real
 * apiserver's batches is proved in tls-listener.int.test.ts.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import tls from "node:tls";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createCa, issueServingCert, type CertPair } from "@/cluster/certs";
import { startAuditTlsListener, stopAuditTlsListener } from "./tls-listener";

let dir: string;
let serverCa: CertPair;
let serving: CertPair;
let clientCa: CertPair;
let apiserver: CertPair;
let otherName: CertPair;
let foreign: CertPair;
let serverAuthOnly: CertPair;
let noUsage: CertPair;
let twoNames: CertPair;

/**
 * A certificate from `ca` for `subject` with the given extensions (a file name `name`): no
 * extended key usage at all, serverAuth only, several common names.
 */
function certWith(ca: CertPair, name: string, subject: string, extensions: string): CertPair {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  const ext = path.join(dir, `${name}.ext`);
  writeFileSync(ext, extensions);
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyFile]);
  run(["req", "-new", "-key", keyFile, "-subj", subject, "-out", `${name}.csr`]);
  run([
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    ca.certFile,
    "-CAkey",
    ca.keyFile,
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    ext,
    "-out",
    certFile,
  ]);
  return { certFile, keyFile };
}

function subdir(name: string): string {
  const d = path.join(dir, name);
  mkdirSync(d);
  return d;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-audit-tls-"));
  serverCa = createCa(subdir("server-ca"), "server-ca");
  serving = issueServingCert(dir, serverCa, "audit-sink");
  clientCa = createCa(subdir("client-ca"), "audit-client-ca");
  apiserver = issueServingCert(dir, clientCa, "kube-apiserver");
  otherName = issueServingCert(dir, clientCa, "someone-else");
  const otherCa = createCa(subdir("other-ca"), "other-ca");
  foreign = issueServingCert(subdir("foreign"), otherCa, "kube-apiserver");
  serverAuthOnly = certWith(
    clientCa,
    "serving-only",
    "/CN=kube-apiserver",
    "extendedKeyUsage=serverAuth\n",
  );
  noUsage = certWith(clientCa, "no-usage", "/CN=kube-apiserver", "");
  twoNames = certWith(clientCa, "two-names", "/CN=kube-apiserver/CN=someone-else", "");
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await stopAuditTlsListener();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

function settings(extra: Record<string, string | undefined> = {}) {
  return {
    PORTCULLIS_AUDIT_TLS_LISTEN: "127.0.0.1:0",
    PORTCULLIS_AUDIT_TLS_CERT_FILE: serving.certFile,
    PORTCULLIS_AUDIT_TLS_KEY_FILE: serving.keyFile,
    PORTCULLIS_AUDIT_CLIENT_CA_FILE: clientCa.certFile,
    ...extra,
  };
}

async function post(
  where: string,
  opts: { cert?: CertPair; token?: string; path?: string } = {},
): Promise<{ status: number; message: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `https://${where}${opts.path ?? "/api/audit"}`,
      {
        method: "POST",
        ca: readFileSync(serverCa.certFile),
        ...(opts.cert
          ? { cert: readFileSync(opts.cert.certFile), key: readFileSync(opts.cert.keyFile) }
          : {}),
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        agent: false,
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString("utf8")));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            message: (JSON.parse(body) as { message: string }).message,
          }),
        );
      },
    );
    req.on("error", reject);
    // Not an EventList: an authenticated sender gets 400 and nothing is stored.
    req.end("not json");
  });
}

describe("the audit sink's TLS listener", () => {
  it("does not start with half its settings, an unreadable file or a key not the certificate's, and says why", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(
      await startAuditTlsListener(settings({ PORTCULLIS_AUDIT_CLIENT_CA_FILE: undefined })),
    ).toBeUndefined();
    expect(logged).toHaveBeenLastCalledWith(
      expect.stringMatching(
        /^portcullis: the audit sink's TLS listener is not started: .*missing: PORTCULLIS_AUDIT_CLIENT_CA_FILE$/,
      ),
    );
    const missing = path.join(dir, "nowhere.crt");
    expect(
      await startAuditTlsListener(settings({ PORTCULLIS_AUDIT_CLIENT_CA_FILE: missing })),
    ).toBeUndefined();
    expect(logged).toHaveBeenLastCalledWith(
      expect.stringContaining(
        `on 127.0.0.1:0 is not started: PORTCULLIS_AUDIT_CLIENT_CA_FILE (${missing}) cannot be read: ENOENT`,
      ),
    );
    expect(
      await startAuditTlsListener(settings({ PORTCULLIS_AUDIT_TLS_KEY_FILE: apiserver.keyFile })),
    ).toBeUndefined();
    expect(logged).toHaveBeenLastCalledWith(
      expect.stringContaining("must hold PEM certificates and the certificate's key"),
    );
    expect(await startAuditTlsListener({})).toBeUndefined();
    expect(logged).toHaveBeenCalledTimes(3);
  });

  it("accepts any certificate its client CA signed for client use, and refuses the rest with 401", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    vi.stubEnv("PORTCULLIS_AUDIT_TOKEN", "");
    const where = await startAuditTlsListener(settings());
    expect(where).toMatch(/^127\.0\.0\.1:\d+$/);
    const at = where as string;
    // No extended key usage at all allows any use, as in Go's and OpenSSL's verification.
    for (const cert of [apiserver, otherName, noUsage, twoNames]) {
      expect(await post(at, { cert })).toMatchObject({ status: 400 });
    }
    expect(await post(at, { cert: foreign })).toEqual({
      status: 401,
      message: expect.stringMatching(
        /^the client certificate is not signed by PORTCULLIS_AUDIT_CLIENT_CA_FILE \(\w+\), and no bearer token$/,
      ),
    });
    // Signed by the client CA, but for serving only: TLS does not verify it for a client.
    expect(await post(at, { cert: serverAuthOnly })).toEqual({
      status: 401,
      message: expect.stringContaining("(INVALID_PURPOSE)"),
    });
    expect(await post(at)).toEqual({
      status: 401,
      message: "no client certificate, and no bearer token",
    });
    expect(await post(at, { token: "guess" })).toEqual({
      status: 401,
      message:
        "no client certificate, and a bearer token was sent but PORTCULLIS_AUDIT_TOKEN is not set",
    });
    expect(await post(at, { cert: apiserver, path: "/api/decisions" })).toMatchObject({
      status: 404,
    });
  });

  it("with PORTCULLIS_AUDIT_CLIENT_NAMES accepts only those common names; the bearer token still works", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    vi.stubEnv("PORTCULLIS_AUDIT_TOKEN", "the-token");
    const at = (await startAuditTlsListener(
      settings({ PORTCULLIS_AUDIT_CLIENT_NAMES: "kube-apiserver, other-apiserver" }),
    )) as string;
    expect(await post(at, { cert: apiserver })).toMatchObject({ status: 400 });
    expect(await post(at, { cert: otherName })).toEqual({
      status: 401,
      message:
        'the client certificate\'s common name ("someone-else") is not in PORTCULLIS_AUDIT_CLIENT_NAMES, and no bearer token',
    });
    expect(await post(at, { cert: otherName, token: "wrong" })).toMatchObject({ status: 401 });
    // Two common names, one allowed: which one names the sender is not clear, so neither does.
    expect(await post(at, { cert: twoNames })).toEqual({
      status: 401,
      message:
        'the client certificate\'s common name ("kube-apiserver", "someone-else") is not in PORTCULLIS_AUDIT_CLIENT_NAMES, and no bearer token',
    });
    expect(await post(at, { token: "the-token" })).toMatchObject({ status: 400 });
    expect(await post(at, { cert: foreign, token: "the-token" })).toMatchObject({ status: 400 });
  });

  it("serves a rotated certificate to new connections once its files change, and keeps the old one while they do not match", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.stubEnv("PORTCULLIS_AUDIT_TOKEN", "");
    const live = subdir("rotated");
    const certFile = path.join(live, "tls.crt");
    const keyFile = path.join(live, "tls.key");
    copyFileSync(serving.certFile, certFile);
    copyFileSync(serving.keyFile, keyFile);
    const at = (await startAuditTlsListener(
      settings({
        PORTCULLIS_AUDIT_TLS_CERT_FILE: certFile,
        PORTCULLIS_AUDIT_TLS_KEY_FILE: keyFile,
      }),
    )) as string;
    const [host, port] = at.split(":") as [string, string];
    const served = () =>
      new Promise<string>((resolve, reject) => {
        const socket = tls.connect(
          { host, port: Number(port), ca: readFileSync(serverCa.certFile) },
          () => {
            resolve(socket.getPeerCertificate().fingerprint256);
            socket.end();
          },
        );
        socket.on("error", reject);
      });
    const fingerprint = (file: string) =>
      new crypto.X509Certificate(readFileSync(file)).fingerprint256;
    expect(await served()).toBe(fingerprint(serving.certFile));

    // Half a rotation (a new certificate, the old key): the old pair stays in service.
    const next = issueServingCert(subdir("next"), serverCa, "audit-sink");
    copyFileSync(next.certFile, certFile);
    await vi.waitFor(
      () =>
        expect(logged).toHaveBeenCalledWith(
          expect.stringContaining("keeps its certificates: the changed files cannot be used"),
        ),
      { timeout: 15_000, interval: 200 },
    );
    expect(await served()).toBe(fingerprint(serving.certFile));
    copyFileSync(next.keyFile, keyFile);
    await vi.waitFor(async () => expect(await served()).toBe(fingerprint(next.certFile)), {
      timeout: 15_000,
      interval: 200,
    });
    // The apiserver's client certificate is still accepted after the rotation.
    expect(await post(at, { cert: apiserver })).toMatchObject({ status: 400 });
  });
});
