/**
 * The three users of the local control plane and the RBAC that gives each its role:
 * admin is cluster-admin (system:masters); viewer may read admission configuration, namespaces,
 * services, endpoints and pods but write nothing; editor may also write admission configuration
 * and read the dashboard's admission decisions (the non-resource URL /portcullis/decisions).
 */
export type UserName = "admin" | "viewer" | "editor";

export const USERS: ReadonlyArray<{ name: UserName; groups: string[] }> = [
  { name: "admin", groups: ["system:masters"] },
  { name: "viewer", groups: ["portcullis:viewers"] },
  { name: "editor", groups: ["portcullis:editors"] },
];

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];

const readRules = [
  {
    apiGroups: ["admissionregistration.k8s.io", "admission.portcullis.dev"],
    resources: ["*"],
    verbs: READ,
  },
  { apiGroups: [""], resources: ["namespaces", "services", "endpoints", "pods"], verbs: READ },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
  { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: READ },
];

function clusterRole(name: string, rules: unknown[]) {
  return {
    path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules,
    },
  };
}

function binding(name: string, role: string, group: string) {
  return {
    path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: group }],
    },
  };
}

/** Objects to POST (path relative to the apiserver) after it becomes ready. */
export function rbacObjects(): Array<{ path: string; body: unknown }> {
  return [
    clusterRole("portcullis:viewer", readRules),
    clusterRole("portcullis:editor", [
      ...readRules,
      {
        apiGroups: ["admissionregistration.k8s.io", "admission.portcullis.dev"],
        resources: ["*"],
        verbs: WRITE,
      },
      // Admission decisions (the dashboard's feed), decided by the apiserver's RBAC.
      { nonResourceURLs: ["/portcullis/decisions"], verbs: ["get"] },
    ]),
    binding("portcullis:viewers", "portcullis:viewer", "portcullis:viewers"),
    binding("portcullis:editors", "portcullis:editor", "portcullis:editors"),
  ];
}
