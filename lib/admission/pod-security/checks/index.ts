/**
 * Every check of the Pod Security Standards the apiserver's PodSecurity plugin runs
 * (`policy.DefaultChecks()`); the registry orders them (policy.ts).
 */
import type { Check } from "../types";
import { allowPrivilegeEscalation } from "./allowPrivilegeEscalation";
import { appArmorProfile } from "./appArmorProfile";
import { capabilities_baseline } from "./capabilities_baseline";
import { capabilities_restricted } from "./capabilities_restricted";
import { hostNamespaces } from "./hostNamespaces";
import { hostPathVolumes } from "./hostPathVolumes";
import { hostPorts } from "./hostPorts";
import { hostProbesAndHostLifecycle } from "./hostProbesAndHostLifecycle";
import { privileged } from "./privileged";
import { procMount } from "./procMount";
import { procMount_restricted } from "./procMount_restricted";
import { restrictedVolumes } from "./restrictedVolumes";
import { runAsNonRoot } from "./runAsNonRoot";
import { runAsUser } from "./runAsUser";
import { seLinuxOptions } from "./seLinuxOptions";
import { seccompProfile_baseline } from "./seccompProfile_baseline";
import { seccompProfile_restricted } from "./seccompProfile_restricted";
import { sysctls } from "./sysctls";
import { windowsHostProcess } from "./windowsHostProcess";

export const CHECKS: readonly Check[] = [
  allowPrivilegeEscalation,
  appArmorProfile,
  capabilities_baseline,
  capabilities_restricted,
  hostNamespaces,
  hostPathVolumes,
  hostPorts,
  hostProbesAndHostLifecycle,
  privileged,
  procMount,
  procMount_restricted,
  restrictedVolumes,
  runAsNonRoot,
  runAsUser,
  seLinuxOptions,
  seccompProfile_baseline,
  seccompProfile_restricted,
  sysctls,
  windowsHostProcess,
];
