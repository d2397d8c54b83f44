/**
 * Certificates for the local control plane, made per run with the openssl command line:
 * one CA that signs the apiserver's serving certificate, the audit sink's and every harness
 * webhook server's, plus the service-account signing key pair.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface CertPair {
  certFile: string;
  keyFile: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** Creates a self-signed CA (EC P-256) in `dir`, valid for `days`. */
export function createCa(dir: string, commonName = "portcullis-local-ca", days = 365): CertPair {
  const keyFile = path.join(dir, "ca.key");
  const certFile = path.join(dir, "ca.crt");
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyFile], dir);
  openssl(
    [
      "req",
      "-x509",
      "-new",
      "-key",
      keyFile,
      "-sha256",
      "-days",
      String(days),
      "-subj",
      `/CN=${commonName}`,
      "-out",
      certFile,
    ],
    dir,
  );
  return { certFile, keyFile };
}

/**
 * Issues a serving certificate signed by `ca` for loopback use. `name` prefixes the files;
 * `hosts` become subjectAltNames (IPs and DNS names). `digest` "sha1" makes the deprecated
 * signature the apiserver refuses (for tests of how that is reported).
 */
export function issueServingCert(
  dir: string,
  ca: CertPair,
  name: string,
  hosts: string[] = ["127.0.0.1", "localhost"],
  digest: "sha256" | "sha1" = "sha256",
): CertPair {
  const keyFile = path.join(dir, `${name}.key`);
  const csrFile = path.join(dir, `${name}.csr`);
  const certFile = path.join(dir, `${name}.crt`);
  const extFile = path.join(dir, `${name}.ext`);
  const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(",");
  writeFileSync(
    extFile,
    `subjectAltName=${san}\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n`,
  );
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyFile], dir);
  openssl(["req", "-new", "-key", keyFile, "-subj", `/CN=${name}`, "-out", csrFile], dir);
  openssl(
    [
      "x509",
      "-req",
      "-in",
      csrFile,
      "-CA",
      ca.certFile,
      "-CAkey",
      ca.keyFile,
      "-CAcreateserial",
      "-days",
      "30",
      `-${digest}`,
      "-extfile",
      extFile,
      "-out",
      certFile,
    ],
    dir,
  );
  return { certFile, keyFile };
}

/** Creates the service-account token signing key pair (RSA, as kube-controller-manager expects PEM). */
export function createServiceAccountKeys(dir: string): {
  privateKeyFile: string;
  publicKeyFile: string;
} {
  const privateKeyFile = path.join(dir, "sa.key");
  const publicKeyFile = path.join(dir, "sa.pub");
  openssl(["genrsa", "-out", privateKeyFile, "2048"], dir);
  openssl(["rsa", "-in", privateKeyFile, "-pubout", "-out", publicKeyFile], dir);
  return { privateKeyFile, publicKeyFile };
}

/** Base64 of a PEM file, as a webhook clientConfig.caBundle wants it. */
export function caBundleOf(certFile: string): string {
  return readFileSync(certFile).toString("base64");
}
