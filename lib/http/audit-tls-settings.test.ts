import { describe, expect, it } from "vitest";
import { auditTlsSettings } from "./audit-tls-settings";

const all = {
  PORTCULLIS_AUDIT_TLS_LISTEN: "0.0.0.0:8443",
  PORTCULLIS_AUDIT_TLS_CERT_FILE: "/tls/tls.crt",
  PORTCULLIS_AUDIT_TLS_KEY_FILE: "/tls/tls.key",
  PORTCULLIS_AUDIT_CLIENT_CA_FILE: "/tls/client-ca.crt",
};

describe("the audit sink's TLS listener settings", () => {
  it("are absent when none is set (blank counts as unset)", () => {
    expect(auditTlsSettings({})).toBeUndefined();
    expect(
      auditTlsSettings({ PORTCULLIS_AUDIT_TLS_LISTEN: " ", PORTCULLIS_AUDIT_CLIENT_NAMES: "" }),
    ).toBeUndefined();
  });

  it("take the four files and address together, any client name by default", () => {
    expect(auditTlsSettings(all)).toEqual({
      listen: "0.0.0.0:8443",
      host: "0.0.0.0",
      port: 8443,
      certFile: "/tls/tls.crt",
      keyFile: "/tls/tls.key",
      clientCaFile: "/tls/client-ca.crt",
    });
    expect(auditTlsSettings({ ...all, PORTCULLIS_AUDIT_TLS_LISTEN: "[::]:8443" })?.host).toBe("::");
  });

  it("list allowed common names, trimmed, without empties or repeats", () => {
    expect(
      auditTlsSettings({
        ...all,
        PORTCULLIS_AUDIT_CLIENT_NAMES: " kube-apiserver , , kube apiserver 2,kube-apiserver",
      })?.clientNames,
    ).toEqual(["kube-apiserver", "kube apiserver 2"]);
  });

  it("refuse half the settings, naming what is missing", () => {
    expect(() => auditTlsSettings({ ...all, PORTCULLIS_AUDIT_CLIENT_CA_FILE: undefined })).toThrow(
      /missing: PORTCULLIS_AUDIT_CLIENT_CA_FILE$/,
    );
    expect(() =>
      auditTlsSettings({ PORTCULLIS_AUDIT_TLS_CERT_FILE: "/c", PORTCULLIS_AUDIT_TLS_KEY_FILE: "" }),
    ).toThrow(
      /missing: PORTCULLIS_AUDIT_TLS_LISTEN, PORTCULLIS_AUDIT_TLS_KEY_FILE, PORTCULLIS_AUDIT_CLIENT_CA_FILE$/,
    );
    // Names alone would restrict a listener that is not there.
    expect(() => auditTlsSettings({ PORTCULLIS_AUDIT_CLIENT_NAMES: "kube-apiserver" })).toThrow(
      /^PORTCULLIS_AUDIT_TLS_LISTEN, .* are set together .*; missing: PORTCULLIS_AUDIT_TLS_LISTEN,/,
    );
  });

  it("refuse an address that is not host:port and a names list naming nobody", () => {
    expect(() => auditTlsSettings({ ...all, PORTCULLIS_AUDIT_TLS_LISTEN: "8443" })).toThrow(
      'PORTCULLIS_AUDIT_TLS_LISTEN must be host:port, not "8443"',
    );
    expect(() => auditTlsSettings({ ...all, PORTCULLIS_AUDIT_TLS_LISTEN: "h:99999" })).toThrow(
      /host:port/,
    );
    expect(() => auditTlsSettings({ ...all, PORTCULLIS_AUDIT_CLIENT_NAMES: " , " })).toThrow(
      "PORTCULLIS_AUDIT_CLIENT_NAMES must list common names",
    );
  });
});
