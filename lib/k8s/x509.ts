/** What the dashboard shows about one certificate of a caBundle (decoded on the server). */
export interface CertificateView {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** SHA-256 fingerprint of the DER, colon-separated hex. */
  sha256: string;
  isCA: boolean;
  subjectAltName?: string;
  daysLeft: number;
}

/** A decoded caBundle: its certificates, or why it could not be read. */
export interface CaBundleView {
  certificates: CertificateView[];
  error?: string;
  /** CERTIFICATE blocks that do not parse (the apiserver skips them when another one loads). */
  unparseable?: number;
  /** True when the bundle carried something other than certificates (e.g. a private key), which is never shown. */
  strippedNonCertificate: boolean;
}
