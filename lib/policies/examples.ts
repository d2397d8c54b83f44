/** A small object to try a policy with, picked from the resources its rules name. Pure. */
import type { V1NamedRuleWithOperations } from "@/lib/k8s/types";

const EXAMPLES: Record<string, string> = {
  pods: `apiVersion: v1
kind: Pod
metadata:
  name: try-pod
  namespace: default
spec:
  containers:
    - name: app
      image: registry.example/app:latest
`,
  deployments: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: try-deployment
  namespace: default
spec:
  selector:
    matchLabels: { app: try }
  template:
    metadata:
      labels: { app: try }
    spec:
      containers:
        - name: app
          image: registry.example/app:1.0
`,
  configmaps: `apiVersion: v1
kind: ConfigMap
metadata:
  name: try-configmap
  namespace: default
data:
  key: value
`,
};

/** YAML of an example object for the first rule resource we have an example for (else a ConfigMap). */
export function exampleObject(rules: V1NamedRuleWithOperations[] | undefined): string {
  for (const r of rules ?? [])
    for (const res of r.resources ?? []) {
      const e = EXAMPLES[res === "*" ? "configmaps" : res];
      if (e) return e;
    }
  return EXAMPLES.configmaps!;
}
