/**
 * The PodSecurity entry of the local AdmissionConfiguration: the built-in defaults and the local
 * exemptions unless a control plane of a test's own overrides them, section by section.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readAdmissionConfig } from "@/server/kube/admission-config";
import { writeAdmissionConfiguration } from "./index";
import { POD_SECURITY_EXEMPT } from "./pod-security";

const dirs: string[] = [];
function written(opts: Parameters<typeof writeAdmissionConfiguration>[1]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-admission-config-"));
  dirs.push(dir);
  return readAdmissionConfig(writeAdmissionConfiguration(dir, opts).file).podSecurity;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const LOCAL_EXEMPTIONS = {
  usernames: [POD_SECURITY_EXEMPT.username],
  namespaces: [POD_SECURITY_EXEMPT.namespace],
  runtimeClasses: [POD_SECURITY_EXEMPT.runtimeClass],
};

describe("the local control plane's PodSecurity configuration", () => {
  it("keeps the built-in defaults and the local exemptions without an override", () => {
    const c = written({});
    expect(c.defaults).toEqual({
      enforce: "privileged",
      "enforce-version": "latest",
      audit: "privileged",
      "audit-version": "latest",
      warn: "privileged",
      "warn-version": "latest",
    });
    expect(c.exemptions).toEqual(LOCAL_EXEMPTIONS);
  });

  it("writes overridden defaults as given (the plugin defaults what is left out) and keeps the exemptions", () => {
    const c = written({
      podSecurity: { defaults: { enforce: "baseline", "warn-version": "v1.31" } },
    });
    expect(c.defaults).toEqual({
      enforce: "baseline",
      "enforce-version": "latest",
      audit: "privileged",
      "audit-version": "latest",
      warn: "privileged",
      "warn-version": "v1.31",
    });
    expect(c.exemptions).toEqual(LOCAL_EXEMPTIONS);
  });

  it("replaces the exemptions when they are given", () => {
    const c = written({ podSecurity: { exemptions: { usernames: ["someone"] } } });
    expect(c.exemptions).toEqual({ usernames: ["someone"], namespaces: [], runtimeClasses: [] });
  });
});
