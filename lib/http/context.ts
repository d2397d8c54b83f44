/** How a request names the kubeconfig context it acts as (see server/kube/identity.ts). */
export const CONTEXT_HEADER = "x-portcullis-context";
/** The query parameter form, for EventSource URLs (they cannot carry headers). */
export const CONTEXT_PARAM = "context";
