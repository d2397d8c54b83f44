/** Requests to start a prediction from: common objects and the subresource bodies admins ask about. */
import type { PredictPageState } from "./page-state";

export interface PredictTemplate {
  id: string;
  title: string;
  state: Partial<PredictPageState>;
}

export const PREDICT_TEMPLATES: readonly PredictTemplate[] = [
  {
    id: "pod",
    title: "Create a Pod",
    state: {
      operation: "CREATE",
      object: `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels:
    app: web
spec:
  containers:
    - name: web
      image: registry.local/web:1.0
`,
    },
  },
  {
    id: "deployment",
    title: "Create a Deployment",
    state: {
      operation: "CREATE",
      object: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: registry.local/web:1.0
`,
    },
  },
  {
    id: "scale",
    title: "Scale a Deployment (UPDATE deployments/scale)",
    state: {
      operation: "UPDATE",
      subresource: "scale",
      resource: "apps/v1/deployments",
      object: `apiVersion: autoscaling/v1
kind: Scale
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
`,
    },
  },
  {
    id: "exec",
    title: "Exec into a Pod (CONNECT pods/exec)",
    state: {
      operation: "CONNECT",
      subresource: "exec",
      object: `apiVersion: v1
kind: PodExecOptions
command: ["sh"]
stdin: true
tty: true
`,
      namespace: "default",
      // The options name no pod: the request names it (the URL's pods/web/exec).
      name: "web",
    },
  },
  {
    id: "namespace",
    title: "Create a Namespace",
    state: {
      operation: "CREATE",
      object: `apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    team: a
`,
    },
  },
  {
    id: "configmap-delete",
    title: "Delete a ConfigMap",
    state: {
      operation: "DELETE",
      object: `apiVersion: v1
kind: ConfigMap
metadata:
  name: example
  namespace: default
`,
    },
  },
];
