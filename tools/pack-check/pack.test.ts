import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { danglingImports, PACKAGES, ROOT, shippedTestSupport } from "./pack.mjs";

describe("shippedTestSupport", () => {
  const plain = { exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } } };

  it("refuses test files, testing/ folders and support kept under the older names", () => {
    const listing = [
      "package/dist/index.js",
      "package/src/index.ts",
      "package/src/index.test.ts",
      "package/src/testing/random.ts",
      "package/dist/node/testing/files.js",
      "package/src/train/__fixtures__/encoder.ts",
      "package/src/test-mirror.ts",
      "package/src/test-support.ts",
      "package/src/latest-model.ts",
    ];
    expect(shippedTestSupport(listing, plain)).toEqual([
      "package/src/index.test.ts",
      "package/src/testing/random.ts",
      "package/dist/node/testing/files.js",
      "package/src/train/__fixtures__/encoder.ts",
      "package/src/test-mirror.ts",
      "package/src/test-support.ts",
    ]);
  });

  it("lets through the testing/ folder a package exports, and only that one", () => {
    const core = {
      exports: {
        "./testing": {
          "lagrange-source": "./src/testing/index.ts",
          types: "./dist/testing/index.d.ts",
          default: "./dist/testing/index.js",
        },
        "./internal/*": null,
      },
    };
    const listing = [
      "package/src/testing/brute-force.ts",
      "package/dist/testing/index.js",
      "package/src/testing/check-slave.test.ts",
      "package/src/node/testing/files.ts",
    ];
    expect(shippedTestSupport(listing, core)).toEqual([
      "package/src/testing/check-slave.test.ts",
      "package/src/node/testing/files.ts",
    ]);
  });
});

describe("danglingImports", () => {
  it("names relative imports of files the tarball lacks", () => {
    const files: Record<string, string> = {
      "package/dist/index.js": 'export * from "./a.js";\nimport { x } from "./testing/x.js";',
      "package/dist/a.js": 'const m = await import("../dist/index.js"); import "node:fs";',
    };
    expect(danglingImports(Object.keys(files), (path) => files[path] ?? "")).toEqual([
      "package/dist/index.js → ./testing/x.js",
    ]);
  });
});

// What the tarballs leave out is declared twice per package (the build's and the tarball's): both
// must leave out every testing/ folder but an exported one, for every published package.
describe.each(PACKAGES)("@lagrange/%s leaves its test support out", (name) => {
  const dir = join(ROOT, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const build = JSON.parse(readFileSync(join(dir, "tsconfig.build.json"), "utf8"));
  const exportsTesting = JSON.stringify(manifest.exports).includes("/testing/");

  it("in package.json files and tsconfig.build.json", () => {
    if (exportsTesting) {
      expect(manifest.files).toEqual(
        expect.arrayContaining(["!src/*/**/testing", "!dist/*/**/testing", "!**/*.test.*"]),
      );
      expect(build.exclude).toContain("src/*/**/testing");
    } else {
      expect(manifest.files).toEqual(expect.arrayContaining(["!**/testing", "!**/*.test.*"]));
      expect(build.exclude).toContain("src/**/testing");
    }
  });
});
