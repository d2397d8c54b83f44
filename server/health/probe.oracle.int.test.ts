/**
 * TLS oracle: the Health page's probe of a webhook backend set against the apiserver's own call.
 * The probe claims to verify what the apiserver verifies before every call (the hook's caBundle,
 * the name in its URL). For each variant of how a serving certificate and a caBundle can be made
 * — the bundle's CA or another, both concatenated, an intermediate sent or not, a bundle holding
 * only the intermediate, names in SANs or only in the subject's CN, an IP or a DNS name, a leaf
 * for client auth only, a CA without CA:TRUE, a self-signed leaf, RSA 1024 and 2048 — a backend
 * serves that certificate, a validating hook (failurePolicy Fail) calls it, and a dry-run create
 * asks the apiserver: the call succeeds exactly when the probe says ok.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest, type HttpsJsonResponse } from "../../cluster/https-json";
import { probeTls } from "./probe";

const id = `tls${Date.now().toString(36)}`;
let stack: StackInfo;
let ca: Buffer;
let dir: string;

function kube(method: string, p: string, body?: unknown): Promise<HttpsJsonResponse> {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

function openssl(args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

interface Cert {
  cert: string;
  key: string;
  pem: string;
}

type KeyKind = "ec" | "rsa1024" | "rsa2048";

function newKey(name: string, kind: KeyKind): string {
  const key = path.join(dir, `${name}.key`);
  if (kind === "ec") openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]);
  else openssl(["genrsa", "-out", key, kind === "rsa1024" ? "1024" : "2048"]);
  return key;
}

/** Writes an extensions file with one section `ext`. */
function extFile(name: string, lines: string[]): string {
  const file = path.join(dir, `${name}.cnf`);
  writeFileSync(file, ["[req]", "distinguished_name=dn", "[dn]", "[ext]", ...lines, ""].join("\n"));
  return file;
}

const CA_EXT = ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"];

/** A self-signed certificate: a CA (default), or not (`lines` say what it is). */
function selfSigned(name: string, cn: string, lines = CA_EXT, key: KeyKind = "ec"): Cert {
  const k = newKey(name, key);
  const cert = path.join(dir, `${name}.crt`);
  const cnf = extFile(name, lines);
  openssl([
    "req",
    "-x509",
    "-new",
    "-key",
    k,
    "-sha256",
    "-days",
    "30",
    "-subj",
    `/CN=${cn}`,
    "-config",
    cnf,
    "-extensions",
    "ext",
    "-out",
    cert,
  ]);
  return { cert, key: k, pem: readFileSync(cert, "utf8") };
}

/** A certificate signed by `signer`. */
function signed(
  name: string,
  cn: string,
  signer: Cert,
  lines: string[],
  key: KeyKind = "ec",
  digest = "sha256",
): Cert {
  const k = newKey(name, key);
  const csr = path.join(dir, `${name}.csr`);
  const cert = path.join(dir, `${name}.crt`);
  openssl(["req", "-new", "-key", k, "-subj", `/CN=${cn}`, "-out", csr]);
  const cnf = extFile(name, lines);
  openssl([
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    signer.cert,
    "-CAkey",
    signer.key,
    "-CAcreateserial",
    "-days",
    "30",
    `-${digest}`,
    "-extfile",
    cnf,
    "-extensions",
    "ext",
    "-out",
    cert,
  ]);
  return { cert, key: k, pem: readFileSync(cert, "utf8") };
}

const SERVER = [
  "basicConstraints=critical,CA:FALSE",
  "keyUsage=critical,digitalSignature,keyEncipherment",
  "extendedKeyUsage=serverAuth",
];
const san = (...names: string[]) =>
  `subjectAltName=${names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(",")}`;

interface Variant {
  name: string;
  /** The host in the hook's URL (the name both verify). */
  host: "127.0.0.1" | "localhost";
  /** What the backend serves: its certificate, then any chain it sends. */
  serve: Cert[];
  key: Cert;
  /** The hook's caBundle (PEM). */
  bundle: string;
}

function variants(): Variant[] {
  const root = selfSigned("root", `${id}-root`);
  const other = selfSigned("other", `${id}-other`);
  const inter = signed("inter", `${id}-inter`, root, CA_EXT);
  const notCa = selfSigned("notca", `${id}-notca`, [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature,keyCertSign",
  ]);
  const leaf = (name: string, signer: Cert, lines: string[], key: KeyKind = "ec", cn = name) =>
    signed(name, cn, signer, lines, key);
  const good = leaf("good", root, [...SERVER, san("127.0.0.1", "localhost")]);
  const viaInter = leaf("via-inter", inter, [...SERVER, san("127.0.0.1", "localhost")]);
  const cnOnly = leaf("cn-only", root, SERVER, "ec", "localhost");
  const cnOnlyIp = leaf("cn-only-ip", root, SERVER, "ec", "127.0.0.1");
  const dnsOnly = leaf("dns-only", root, [...SERVER, san("localhost")]);
  const ipOnly = leaf("ip-only", root, [...SERVER, san("127.0.0.1")]);
  const clientOnly = leaf("client-only", root, [
    "basicConstraints=critical,CA:FALSE",
    "keyUsage=critical,digitalSignature",
    "extendedKeyUsage=clientAuth",
    san("127.0.0.1", "localhost"),
  ]);
  const noEku = leaf("no-eku", root, [
    "basicConstraints=critical,CA:FALSE",
    san("127.0.0.1", "localhost"),
  ]);
  const byNotCa = leaf("by-not-ca", notCa, [...SERVER, san("127.0.0.1", "localhost")]);
  const selfLeaf = selfSigned("self-leaf", "self-leaf", [...SERVER, san("127.0.0.1", "localhost")]);
  const rsa1024 = leaf("rsa1024", root, [...SERVER, san("127.0.0.1", "localhost")], "rsa1024");
  const rsa2048 = leaf("rsa2048", root, [...SERVER, san("127.0.0.1", "localhost")], "rsa2048");
  const sha1ViaInter = signed(
    "sha1-via-inter",
    "sha1-via-inter",
    inter,
    [...SERVER, san("127.0.0.1", "localhost")],
    "ec",
    "sha1",
  );
  const sha1 = signed(
    "sha1",
    "sha1",
    root,
    [...SERVER, san("127.0.0.1", "localhost")],
    "ec",
    "sha1",
  );
  const v = (name: string, host: Variant["host"], serve: Cert[], bundle: string): Variant => ({
    name,
    host,
    serve,
    key: serve[0] as Cert,
    bundle,
  });
  return [
    v("good", "127.0.0.1", [good], root.pem),
    v("good-by-name", "localhost", [good], root.pem),
    v("other-ca", "127.0.0.1", [good], other.pem),
    v("both-cas", "127.0.0.1", [good], other.pem + root.pem),
    v("chain-sent", "127.0.0.1", [viaInter, inter], root.pem),
    v("chain-not-sent", "127.0.0.1", [viaInter], root.pem),
    v("bundle-intermediate-only", "127.0.0.1", [viaInter, inter], inter.pem),
    v("bundle-intermediate-only-not-sent", "127.0.0.1", [viaInter], inter.pem),
    v("bundle-root-and-intermediate", "127.0.0.1", [viaInter], root.pem + inter.pem),
    v("cn-only-by-name", "localhost", [cnOnly], root.pem),
    v("cn-only-by-ip", "127.0.0.1", [cnOnlyIp], root.pem),
    v("dns-san-by-ip", "127.0.0.1", [dnsOnly], root.pem),
    v("dns-san-by-name", "localhost", [dnsOnly], root.pem),
    v("ip-san-by-name", "localhost", [ipOnly], root.pem),
    v("client-auth-only", "127.0.0.1", [clientOnly], root.pem),
    v("no-eku", "127.0.0.1", [noEku], root.pem),
    v("signed-by-non-ca", "127.0.0.1", [byNotCa], notCa.pem),
    v("self-signed-leaf", "127.0.0.1", [selfLeaf], selfLeaf.pem),
    v("rsa-1024", "127.0.0.1", [rsa1024], root.pem),
    v("rsa-2048", "127.0.0.1", [rsa2048], root.pem),
    v("sha1-signed", "127.0.0.1", [sha1], root.pem),
    // Bundles as people paste them: text around the block, a key block beside it, CRLF line
    // ends, a broken block before the good one, no PEM at all.
    v("bundle-with-text-around", "127.0.0.1", [good], `my CA:\n${root.pem}\n(end)\n`),
    v("bundle-with-key-block", "127.0.0.1", [good], readFileSync(root.key, "utf8") + root.pem),
    v("bundle-crlf", "127.0.0.1", [good], root.pem.replaceAll("\n", "\r\n")),
    v(
      "bundle-broken-block-first",
      "127.0.0.1",
      [good],
      "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n" + root.pem,
    ),
    v("bundle-not-pem", "127.0.0.1", [good], "this is not a certificate\n"),
    v("sha1-signed-bundle-intermediate-only", "127.0.0.1", [sha1ViaInter, inter], inter.pem),
  ];
}

interface Backend {
  variant: Variant;
  port: number;
  calls: number;
  close: () => Promise<void>;
}

/** An HTTPS admission backend serving the variant's certificate, allowing every request. */
async function serve(variant: Variant): Promise<Backend> {
  const b: Backend = { variant, port: 0, calls: 0, close: async () => undefined };
  const server = https.createServer(
    {
      cert: variant.serve.map((c) => c.pem).join(""),
      key: readFileSync(variant.key.key),
      // Serve whatever the variant is (a 1024-bit key included): the clients decide.
      ciphers: "DEFAULT:@SECLEVEL=0",
    },
    (req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        b.calls++;
        const review = JSON.parse(body) as { apiVersion?: string; request?: { uid?: string } };
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            apiVersion: review.apiVersion ?? "admission.k8s.io/v1",
            kind: "AdmissionReview",
            response: { uid: review.request?.uid ?? "", allowed: true },
          }),
        );
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  b.port = (server.address() as { port: number }).port;
  b.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return b;
}

let backends: Backend[] = [];
const ns = `tls-${id}`;
const config = `tls-${id}`;

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-tls-oracle-"));
  backends = await Promise.all(variants().map(serve));
  const ok = async (method: string, p: string, body: unknown) => {
    const res = await kube(method, p, body);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  };
  await ok("POST", "/api/v1/namespaces", { metadata: { name: ns } });
  await ok("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
    metadata: { name: config },
    webhooks: backends.map((b, i) => ({
      name: `v${i}.${id}.portcullis.test`,
      clientConfig: {
        url: `https://${b.variant.host}:${b.port}/`,
        caBundle: Buffer.from(b.variant.bundle).toString("base64"),
      },
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
      ],
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
      objectSelector: { matchLabels: { variant: String(i) } },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 5,
      failurePolicy: "Fail",
    })),
  });
});

afterAll(async () => {
  await kube(
    "DELETE",
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${config}`,
  );
  await kube("DELETE", `/api/v1/namespaces/${ns}`);
  await Promise.all(backends.map((b) => b.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Whether the apiserver calls the variant's hook: a dry-run create it must call it for. */
async function apiserverCalls(i: number): Promise<{ called: boolean; message: string }> {
  const b = backends[i] as Backend;
  const before = b.calls;
  const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
    metadata: { name: `v${i}`, labels: { variant: String(i) } },
  });
  const message =
    res.status >= 300 ? ((JSON.parse(res.body) as { message?: string }).message ?? "") : "";
  return { called: res.status < 300 && b.calls > before, message };
}

test("the probe says ok exactly when the apiserver can call the backend", async () => {
  // The configuration is in force once the good variant's hook is called.
  const deadline = Date.now() + 20_000;
  while (!(await apiserverCalls(0)).called) {
    if (Date.now() > deadline) throw new Error("the apiserver never called the good variant");
    await new Promise((r) => setTimeout(r, 250));
  }
  const rows: string[] = [];
  const problems: string[] = [];
  for (const [i, b] of backends.entries()) {
    const server = await apiserverCalls(i);
    const probe = await probeTls({
      host: b.variant.host,
      port: b.port,
      serverName: b.variant.host,
      caPem: b.variant.bundle,
      timeoutMs: 5_000,
    });
    const probeOk = probe.status === "ok";
    const why = "error" in probe ? probe.error : "";
    rows.push(
      `${b.variant.name}: apiserver ${server.called ? "calls" : "cannot call"}, probe ${probe.status}`,
    );
    if (probeOk !== server.called)
      problems.push(
        `${b.variant.name}: the apiserver ${server.called ? "calls it" : `cannot (${server.message.slice(0, 200)})`}, the probe says ${probe.status}${why ? ` (${why})` : ""}`,
      );
  }
  console.log(`TLS oracle: ${backends.length} variants\n  ${rows.join("\n  ")}`);
  for (const p of problems) console.log(`DISAGREE ${p}`);
  expect(problems).toEqual([]);
});
