import "server-only";
import { X509Certificate } from "node:crypto";
import type { CaBundleView, CertificateView } from "@/lib/k8s/x509";
import { pemBlocks } from "@/lib/admission/health/pem";

/**
 * Decodes a caBundle (base64 of PEM, as stored) into what an admin needs to see. Only
 * CERTIFICATE blocks are parsed; anything else (a private key pasted by mistake) is dropped and
 * flagged, never echoed back.
 */
export function decodeCaBundle(
  caBundle: string | undefined,
  now: number = Date.now(),
): CaBundleView {
  if (!caBundle) return { certificates: [], strippedNonCertificate: false };
  const pem = Buffer.from(caBundle, "base64").toString("utf8");
  const certificates: CertificateView[] = [];
  let stripped = false;
  let error: string | undefined;
  let unparseable = 0;
  for (const block of pemBlocks(pem)) {
    if (block.label !== "CERTIFICATE") {
      stripped = true;
      continue;
    }
    try {
      const c = new X509Certificate(block.text);
      const notAfter = new Date(c.validTo);
      certificates.push({
        subject: c.subject.replace(/\n/g, ", "),
        issuer: c.issuer.replace(/\n/g, ", "),
        serialNumber: c.serialNumber,
        notBefore: new Date(c.validFrom).toISOString(),
        notAfter: notAfter.toISOString(),
        sha256: c.fingerprint256,
        isCA: c.ca,
        subjectAltName: c.subjectAltName,
        daysLeft: Math.floor((notAfter.getTime() - now) / 86_400_000),
      });
    } catch (e) {
      unparseable++;
      error = `a certificate could not be parsed: ${(e as Error).message}`;
    }
  }
  if (certificates.length === 0 && !error) error = "no PEM certificate found in caBundle";
  // Beside a certificate that loads, the apiserver (AppendCertsFromPEM) skips the others.
  if (certificates.length > 0 && error)
    error = `${unparseable} certificate block(s) could not be parsed and are skipped by the apiserver (${error})`;
  return {
    certificates,
    error,
    unparseable: unparseable > 0 ? unparseable : undefined,
    strippedNonCertificate: stripped,
  };
}
