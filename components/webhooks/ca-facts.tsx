import type { CaBundleView } from "@/lib/k8s/x509";

/** The decoded caBundle: subject, issuer, validity, fingerprint, days left. */
export function CaFacts({ ca }: { ca: CaBundleView | undefined }) {
  if (!ca) return <p className="muted">Decoding…</p>;
  if (ca.certificates.length === 0 && !ca.error)
    return (
      <p className="hint">
        No caBundle: the apiserver verifies the backend with its system trust roots.
      </p>
    );
  return (
    <div className="stack">
      {ca.error ? <p className={ca.certificates.length > 0 ? "warn" : "bad"}>{ca.error}</p> : null}
      {ca.strippedNonCertificate ? (
        <p className="bad">
          The caBundle carries a non-certificate block (e.g. a private key); it is not shown.
        </p>
      ) : null}
      {ca.certificates.map((c) => (
        <dl className="facts" key={c.sha256} aria-label="CA certificate">
          <dt>Subject</dt>
          <dd className="mono">{c.subject}</dd>
          <dt>Issuer</dt>
          <dd className="mono">{c.issuer}</dd>
          <dt>Valid</dt>
          <dd>
            {c.notBefore.slice(0, 10)} → {c.notAfter.slice(0, 10)}{" "}
            <span
              className={c.daysLeft < 0 ? "bad" : c.daysLeft < 30 ? "warn" : "good"}
              data-testid="ca-days-left"
            >
              {c.daysLeft < 0 ? `expired ${-c.daysLeft} days ago` : `${c.daysLeft} days left`}
            </span>
          </dd>
          <dt>SHA-256</dt>
          <dd className="mono fp">{c.sha256}</dd>
          <dt>CA</dt>
          <dd>{c.isCA ? "yes" : "no (leaf certificate)"}</dd>
        </dl>
      ))}
    </div>
  );
}
