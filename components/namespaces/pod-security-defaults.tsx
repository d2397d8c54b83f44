"use client";

import { useQuery } from "@tanstack/react-query";
import { defaultPolicy } from "@/lib/admission/pod-security/configuration";
import { levelVersionString } from "@/lib/admission/pod-security/labels";
import { admissionConfigQuery } from "@/lib/queries/overview";

/**
 * The PodSecurity plugin's cluster-wide defaults (what a namespace without Pod Security labels
 * gets) and its exemptions, from the apiserver's AdmissionConfiguration the dashboard was given.
 */
export function PodSecurityDefaults() {
  const q = useQuery(admissionConfigQuery());
  if (!q.data) return null;
  const { podSecurity: config, error } = q.data;
  const p = defaultPolicy(config ?? undefined);
  const exempt = config
    ? [
        ...config.exemptions.namespaces.map((n) => `namespace ${n}`),
        ...config.exemptions.usernames.map((u) => `user ${u}`),
        ...config.exemptions.runtimeClasses.map((r) => `RuntimeClass ${r}`),
      ]
    : [];
  return (
    <p className="hint" data-testid="pod-security-defaults">
      Pod Security for namespaces without its labels: enforce{" "}
      <span className="mono">{levelVersionString(p.enforce)}</span>, warn{" "}
      <span className="mono">{levelVersionString(p.warn)}</span>, audit{" "}
      <span className="mono">{levelVersionString(p.audit)}</span>{" "}
      {error ? (
        <span className="alert">(built in: the admission configuration is not read: {error})</span>
      ) : config ? (
        <>
          (from <code>{config.source}</code>)
          {exempt.length > 0 ? <>; exempt: {exempt.join(", ")}</> : null}.
        </>
      ) : (
        <>
          (built in: the apiserver&apos;s AdmissionConfiguration was not given; exemptions unknown).
        </>
      )}
    </p>
  );
}
