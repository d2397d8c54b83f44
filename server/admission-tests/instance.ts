/**
 * The process-wide case store: on the decision store's database connection, its table created
 * on first use. A failed open is not remembered: the next call tries again.
 */
import "server-only";
import { decisionStore } from "@/server/decisions/instance";
import { CaseStore } from "./case-store";

const g = globalThis as typeof globalThis & { portcullisCaseStore?: Promise<CaseStore> };

export function caseStore(): Promise<CaseStore> {
  if (!g.portcullisCaseStore) {
    const opening = (async () => {
      const store = new CaseStore((await decisionStore()).driver);
      await store.migrate();
      return store;
    })();
    g.portcullisCaseStore = opening;
    opening.catch(() => {
      if (g.portcullisCaseStore === opening) g.portcullisCaseStore = undefined;
    });
  }
  return g.portcullisCaseStore;
}
