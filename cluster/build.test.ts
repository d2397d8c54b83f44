import { describe, expect, it } from "vitest";
import path from "node:path";
import { BINARIES, controlPlaneBinaries, minorsFromArgs, parseControlPlaneMinor } from "./build";

describe("the control plane's minors", () => {
  it("builds the newest without --minor, one or all with it", () => {
    expect(minorsFromArgs([])).toEqual(["1.37"]);
    expect(minorsFromArgs(["--minor", "1.35"])).toEqual(["1.35"]);
    expect(minorsFromArgs(["--minor", "v1.36.3"])).toEqual(["1.36"]);
    expect(minorsFromArgs(["--minor", "all"])).toEqual(["1.35", "1.36", "1.37"]);
    expect(() => minorsFromArgs(["--minor", "1.34"])).toThrow(/expected one of 1.35, 1.36, 1.37/);
  });

  it("parses only the minors it builds", () => {
    expect(parseControlPlaneMinor("1.36")).toBe("1.36");
    expect(parseControlPlaneMinor("1.38")).toBeUndefined();
  });

  it("an older minor's apiserver and controller manager sit apart; etcd is shared", () => {
    const b = controlPlaneBinaries("1.35");
    expect(b.version).toBe("v1.35.4");
    expect(path.basename(path.dirname(b.apiserver))).toBe("1.35");
    expect(path.basename(path.dirname(b.controllerManager))).toBe("1.35");
    expect(b.etcd).toBe(BINARIES.etcd);
    expect(controlPlaneBinaries("1.36").version).toBe("v1.36.3");
    expect(controlPlaneBinaries()).toMatchObject({ minor: "1.37", ...BINARIES });
  });
});
