import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { shippedResource, shippedResources } from "./index.js";

describe("the shipped resources", () => {
  it("are the manifest's files, each of its size and SHA-256", () => {
    const files = shippedResources();
    expect(files.length).toBeGreaterThan(0);
    for (const entry of files) {
      const file = shippedResource(entry.name);
      expect(file, entry.name).toBeDefined();
      const bytes = readFileSync(file!);
      expect(bytes.length, entry.name).toBe(entry.bytes);
      expect(createHash("sha256").update(bytes).digest("hex"), entry.name).toBe(entry.sha256);
      // The recipe's settings are in the name, as the user cache names its files.
      const r = entry.recipe;
      expect(entry.name).toContain(
        r.kind === "brown-clusters"
          ? `clusters-${r.language}-c${r.clusters}-min${r.minCount}.`
          : `embeddings-${r.language}-min${r.minCount}-w${r.ppmiSvd.window}-d${r.ppmiSvd.dims}-k${r.sizes.join("-")}.`,
      );
    }
    const data = dirname(shippedResource(files[0]!.name)!);
    expect(readdirSync(data).sort()).toEqual([...files.map((f) => f.name), "manifest.json"].sort());
  });

  it("gives no path for a name it does not ship", () => {
    expect(shippedResource("clusters-en-c123-min10.paths")).toBeUndefined();
    expect(shippedResource("manifest.json")).toBeUndefined();
    expect(shippedResource("../package.json")).toBeUndefined();
  });
});
