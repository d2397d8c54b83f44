import { describe, expect, it } from "vitest";
import type { JsonObject } from "./json";
import { kindInfoFor } from "./kind-info";
import { schemas } from "./schema";
import { strictDecode } from "./strict-decode";
import { validateObject } from "./validate-object";

const G = "admissionregistration.k8s.io/v1";
const vwc = (metadata: JsonObject, over: JsonObject = {}): JsonObject => ({
  apiVersion: G,
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "cfg", ...metadata },
  webhooks: [],
  ...over,
});
const decode = (o: JsonObject, kind = "ValidatingWebhookConfiguration") =>
  strictDecode(o, schemas[`${G}/${kind}`]!).map((e) => `${e.field}: ${e.message}`);

describe("strict decoding of metav1.Time fields", () => {
  it("rejects impossible dates and times with time.Parse's error", () => {
    const v = validateObject(
      kindInfoFor(G, "ValidatingWebhookConfiguration")!,
      vwc({ creationTimestamp: "2024-13-01T00:00:00Z" }),
    );
    expect(v.outcome).toBe("decode-error");
    expect(v.statusMessage).toBe(
      'ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: parsing time "2024-13-01T00:00:00Z": month out of range',
    );
    expect(decode(vwc({ creationTimestamp: "2024-02-30T00:00:00Z" }))).toEqual([
      'metadata.creationTimestamp: parsing time "2024-02-30T00:00:00Z": day out of range',
    ]);
    expect(decode(vwc({ creationTimestamp: "2024-01-01T25:00:00Z" }))).toEqual([
      'metadata.creationTimestamp: parsing time "2024-01-01T25:00:00Z": hour out of range',
    ]);
    expect(decode(vwc({ creationTimestamp: "2024-01-01T00:00:00+25:00" }))).toEqual([
      'metadata.creationTimestamp: parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range',
    ]);
  });

  it("names the layout element that failed", () => {
    expect(decode(vwc({ creationTimestamp: "2024-1-01T00:00:00Z" }))).toEqual([
      'metadata.creationTimestamp: parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"',
    ]);
  });

  it('null is the zero time, "" is not a time', () => {
    expect(decode(vwc({ creationTimestamp: null }))).toEqual([]);
    expect(decode(vwc({ creationTimestamp: "" }))).toEqual([
      'metadata.creationTimestamp: parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"',
    ]);
  });

  it("accepts what Go accepts: leap days, fractions, a one-digit hour, a +24:00 offset", () => {
    for (const t of [
      "2024-02-29T00:00:00Z",
      "2024-01-01T00:00:00,5Z",
      "2024-01-01T9:00:00.123456789+24:00",
    ])
      expect(decode(vwc({ creationTimestamp: t }))).toEqual([]);
  });

  it("checks every time field the same way", () => {
    expect(decode(vwc({ deletionTimestamp: "2023-02-29T00:00:00Z" }))).toEqual([
      'metadata.deletionTimestamp: parsing time "2023-02-29T00:00:00Z": day out of range',
    ]);
    expect(decode(vwc({ managedFields: [{ time: "2024-01-01T23:59:60Z" }] }))).toEqual([
      'metadata.managedFields[0].time: parsing time "2024-01-01T23:59:60Z": second out of range',
    ]);
    const vap: JsonObject = {
      apiVersion: G,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "p" },
      status: { conditions: [{ lastTransitionTime: "2024-01-01T00:60:00Z" }] },
    };
    expect(decode(vap, "ValidatingAdmissionPolicy")).toEqual([
      'status.conditions[0].lastTransitionTime: parsing time "2024-01-01T00:60:00Z": minute out of range',
    ]);
  });

  it("a time error ends decoding: it hides earlier type errors and every strict error", () => {
    const o: JsonObject = {
      apiVersion: G,
      kind: "ValidatingWebhookConfiguration",
      webhooks: [{ timeoutSeconds: "x", bar: 2 }],
      metadata: { name: "cfg", foo: 1, creationTimestamp: "2024-13-01T00:00:00Z" },
    };
    expect(decode(o)).toEqual([
      'metadata.creationTimestamp: parsing time "2024-13-01T00:00:00Z": month out of range',
    ]);
  });

  it("a value that is not a string fails inside UnmarshalJSON, as a Go string, and ends decoding", () => {
    expect(decode(vwc({ creationTimestamp: 5 }))).toEqual([
      "metadata.creationTimestamp: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
    ]);
    expect(decode(vwc({ managedFields: [{ time: [] }] }))).toEqual([
      "metadata.managedFields[0].time: json: cannot unmarshal array into Go struct field ManagedFieldsEntry.metadata.managedFields.time of type string",
    ]);
    const o: JsonObject = {
      apiVersion: G,
      kind: "ValidatingWebhookConfiguration",
      webhooks: [{ timeoutSeconds: "x" }],
      metadata: { name: "cfg", creationTimestamp: true },
    };
    expect(decode(o)).toEqual([
      "metadata.creationTimestamp: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
    ]);
  });
});
