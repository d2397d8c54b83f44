import { v1, type Check } from "../types";
import { procMount1_0 } from "./procMount";

/**
 * `procMount_restricted`: from v1.35, where the baseline `procMount` check exempts pods with
 * hostUsers: false, the restricted profile keeps refusing unmasked procMount for every pod, in
 * place of the baseline check.
 */
export const procMount_restricted: Check = {
  id: "procMount_restricted",
  level: "restricted",
  versions: [{ minimumVersion: v1(35), checkPod: procMount1_0, overrideCheckIDs: ["procMount"] }],
};
