import { describe, expect, it } from "vitest";
import { measureTextBundle, TEXT_BUNDLE_GZIP_TARGET, textBundleMarkdown } from "./text-bundle.js";

describe("the browser bundle that tags text with a model", () => {
  it("stays within issue 39's 80 KB gzipped, with no node: import and no other decoder", async () => {
    const result = await measureTextBundle({ top: 200 });
    expect(result.nodeImports).toEqual([]);
    expect(result.gzipBytes).toBeLessThanOrEqual(TEXT_BUNDLE_GZIP_TARGET);
    // The decoders a text tagger does not decode with stay out (HiGHS alone is ≈ 100 KB minified).
    const names = result.packages.map((p) => p.name);
    for (const heavy of ["highs", "packages/ilp", "packages/bcrf", "packages/l2s"]) {
      expect(names).not.toContain(heavy);
    }
    expect(textBundleMarkdown(result)).toContain("gzipped ≤ 80.0 KB");
  });
});
