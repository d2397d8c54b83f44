/** The live inputs of the predict page for a snapshot, as tests give them (built-in discovery). */
import { compileSnapshot } from "@/lib/admission/compile";
import { builtinDiscovery } from "@/lib/admission/resources";
import type { AdmissionSnapshot } from "@/lib/admission/snapshot";
import type { LiveInputs } from "./page-request";

export function liveOf(snapshot: AdmissionSnapshot): LiveInputs {
  return {
    compiled: compileSnapshot(snapshot),
    discovery: builtinDiscovery(),
    namespaces: snapshot.namespaces ?? {},
    identity: { username: "me", groups: ["system:authenticated"] },
  };
}
