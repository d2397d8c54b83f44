import { describe, expect, it } from "vitest";
import { serverKey } from "./profiles";

describe("serverKey", () => {
  it("compares a ClusterProfile's server with a kubeconfig's as the same address", () => {
    expect(serverKey("https://API.example.com")).toBe(serverKey("https://api.example.com:443/"));
    expect(serverKey("https://10.0.0.1:6443")).not.toBe(serverKey("https://10.0.0.1:6444"));
    expect(serverKey("https://h/prefix/")).toBe("https://h:443/prefix");
  });
});
