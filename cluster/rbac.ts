/**
 * The three users of the local control plane and the RBAC that gives each its role:
 * admin is cluster-admin (system:masters); viewer may read admission configuration, namespaces,
 * services, endpoints and pods but write nothing; editor may also write admission configuration
 * and read the dashboard's admission decisions (the non-resource URL /portcullis/decisions).
 * Both read the policy engines' policies through an aggregated ClusterRole, as an admin grants
 * read access to an add-on's kinds: `portcullis:viewer:aggregate` collects every ClusterRole
 * labelled `portcullis.dev/aggregate-to-viewer` (the controller manager's clusterrole-aggregation
 * controller fills its rules), and `portcullis:engines:view` is one, reading the engines' groups.
 */
import {
  ENGINE_SOURCE_KINDS,
  GATEKEEPER_CONSTRAINTS_GROUP,
} from "../lib/admission/engines/sources";

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

/** The label a ClusterRole carries to add its rules to the viewers' and editors' aggregated role. */
const AGGREGATE_TO_VIEWER = "portcullis.dev/aggregate-to-viewer";

/** The aggregated ClusterRole viewers and editors are bound to beside their own. */
export const AGGREGATED_VIEWER_ROLE = "portcullis:viewer:aggregate";

/** The policy engines' API groups (Gatekeeper's templates and constraints, Kyverno's, Kubewarden's). */
const ENGINE_GROUPS = [
  ...new Set([...ENGINE_SOURCE_KINDS.map((k) => k.group), GATEKEEPER_CONSTRAINTS_GROUP]),
].sort();

function clusterRole(
  name: string,
  rules: unknown[],
  extra: { labels?: Record<string, string>; aggregationRule?: unknown } = {},
) {
  return {
    path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) },
      ...(extra.aggregationRule ? { aggregationRule: extra.aggregationRule } : {}),
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
    clusterRole(AGGREGATED_VIEWER_ROLE, [], {
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO_VIEWER]: "true" } }],
      },
    }),
    clusterRole(
      "portcullis:engines:view",
      [{ apiGroups: ENGINE_GROUPS, resources: ["*"], verbs: READ }],
      { labels: { [AGGREGATE_TO_VIEWER]: "true" } },
    ),
    binding("portcullis:viewers", "portcullis:viewer", "portcullis:viewers"),
    binding("portcullis:editors", "portcullis:editor", "portcullis:editors"),
    binding("portcullis:viewers:aggregate", AGGREGATED_VIEWER_ROLE, "portcullis:viewers"),
    binding("portcullis:editors:aggregate", AGGREGATED_VIEWER_ROLE, "portcullis:editors"),
  ];
}
