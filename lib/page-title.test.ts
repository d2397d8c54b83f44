import { describe, expect, it } from "vitest";
import { titleFromName } from "./page-title";

describe("titleFromName", () => {
  it("titles a page by its object's name, percent-decoded", async () => {
    const edit = titleFromName((name) => `Edit ${name}`);
    expect(await edit({ params: Promise.resolve({ name: "tenant-guard" }) })).toEqual({
      title: "Edit tenant-guard",
    });
    expect(await edit({ params: Promise.resolve({ name: "a%2Fb%20%E0%A4%A4" }) })).toEqual({
      title: "Edit a/b त",
    });
  });
});
