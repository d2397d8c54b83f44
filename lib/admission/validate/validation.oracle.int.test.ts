/**
 * The validation oracle: every corpus case is dry-run created on the real kube-apiserver
 * (dryRun=All, fieldValidation=Strict) and our validator must agree on accept/reject and on the
 * set of field paths the apiserver names (status.details.causes[].field for 422; the fields quoted
 * in a strict-decoding 400).
 */
import { expect, test } from "vitest";
import { validationCorpus } from "../../../test/oracle/validation-corpus";
import { judge, reportDisagreements } from "../../../test/oracle/validation-judge";

test("validation oracle: our validator agrees with kube-apiserver on every corpus case", async () => {
  const results = await judge(validationCorpus());
  const agreed = results.filter((r) => r.agree).length;
  console.log(`validation oracle: ${agreed}/${results.length} agree`);
  const file = reportDisagreements("portcullis-validation-oracle", results);
  expect(agreed, `disagreements written to ${file}`).toBe(results.length);
});
