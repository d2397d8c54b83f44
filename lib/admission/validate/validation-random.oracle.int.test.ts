/**
 * The randomized validation oracle: per fixed seed, random admissionregistration objects with
 * several faults at once (test/oracle/validation-random.ts) are dry-run created on the real
 * kube-apiserver and validated by ours, which must agree on the outcome and on the set of field
 * paths the apiserver names, and on the message. Updates too: a random valid object is created for
 * real and an update of it with more faults sent as a dry run. PORTCULLIS_ORACLE_SEED runs one
 * other seed.
 */
import { expect, test } from "vitest";
import { randomUpdateCases, randomValidationCases } from "../../../test/oracle/validation-random";
import { judge, judgeUpdates, reportDisagreements } from "../../../test/oracle/validation-judge";

const SEEDS = process.env.PORTCULLIS_ORACLE_SEED
  ? [Number(process.env.PORTCULLIS_ORACLE_SEED)]
  : [1, 2, 3];
const PER_SEED = Number(process.env.PORTCULLIS_ORACLE_CASES ?? 300);

test.each(SEEDS)(
  "randomized validation oracle, seed %i: our validator agrees with kube-apiserver",
  async (seed) => {
    const results = await judge(randomValidationCases(seed, PER_SEED));
    const agreed = results.filter((r) => r.agree).length;
    const rejected = results.filter((r) => r.server.outcome !== "accepted").length;
    console.log(
      `randomized validation oracle, seed ${seed}: ${agreed}/${results.length} agree (${rejected} rejected by the apiserver)`,
    );
    const file = reportDisagreements(`portcullis-validation-random-${seed}`, results);
    expect(agreed, `disagreements written to ${file}`).toBe(results.length);
  },
  120_000,
);

test.each(SEEDS)(
  "randomized validation oracle, updates, seed %i: our validator agrees with kube-apiserver",
  async (seed) => {
    const cases = randomUpdateCases(seed, PER_SEED / 3, `oracle-upd-${Date.now().toString(36)}`);
    const results = await judgeUpdates(cases);
    const agreed = results.filter((r) => r.agree).length;
    const rejected = results.filter((r) => r.server.outcome !== "accepted").length;
    console.log(
      `randomized validation oracle, updates, seed ${seed}: ${agreed}/${results.length} agree (${rejected} rejected by the apiserver)`,
    );
    const file = reportDisagreements(`portcullis-validation-random-updates-${seed}`, results);
    expect(results.length).toBe(PER_SEED / 3);
    expect(agreed, `disagreements written to ${file}`).toBe(results.length);
  },
  // Cases the apiserver answers 504 (its deadline passed) are sent again alone (validation-judge).
  300_000,
);
