/** The shape of an editor template (shared by webhook and policy templates). Pure. */
import type { AdmissionResource } from "./resource-kinds";

export interface WebhookTemplate {
  id: string;
  title: string;
  description: string;
  resource: AdmissionResource;
  yaml: string;
  /** For a policy: the template of the binding offered once the policy is created. */
  binding?: string;
}
