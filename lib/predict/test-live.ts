/** The live inputs of the predict page for a snapshot, as tests give them (built-in discovery). */
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { LiveInputs } from "./page-request";

export function liveOf(snapshot: AdmissionSnapshot): LiveInputs {
  return {
    compiled: compileSnapshot(snapshot),
    discovery: builtinDiscovery(),
    namespaces: snapshot.namespaces ?? {},
    identity: { username: "me", groups: ["system:authenticated"] },
  };
}
