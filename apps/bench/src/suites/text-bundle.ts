/**
 * The size of the JavaScript a page needs to tag text with a model (issue 39's target: ≤ 80 KB
 * gzipped, the model not counted): an entry that imports only chain-crf's byte loader and
 * `taggerFromModel` + `tagText` from `@lagrange/recipes/browser`, bundled by esbuild for the
 * browser (minified, from the sources as the playground builds them), gzipped at level 9. The
 * metafile says which packages and modules weigh most, to know what to cut when it grows.
 */
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { markdownTable, targetsTable } from "../report.js";

/** Issue 39's budget, in bytes (80 × 1024). */
export const TEXT_BUNDLE_GZIP_TARGET = 80 * 1024;

/** What a page imports to tag text: the model loader, the tagger over a model, text in. */
export const TEXT_BUNDLE_ENTRY = [
  'export { loadModelFromBytes } from "@lagrange/chain-crf";',
  'export { taggerFromModel, tagText } from "@lagrange/recipes/browser";',
].join("\n");

export interface TextBundleResult {
  readonly date: string;
  readonly esbuild: string;
  readonly entry: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly target: number;
  readonly met: boolean;
  /** `node:` imports left in the output (none allowed in a page's bundle). */
  readonly nodeImports: readonly string[];
  /** Bytes in the minified output per package (`packages/core`, or a dependency's name). */
  readonly packages: readonly { readonly name: string; readonly bytes: number }[];
  /** The heaviest modules, bytes in the minified output. */
  readonly modules: readonly { readonly path: string; readonly bytes: number }[];
}

/** A module's package: `packages/<name>` in the workspace, else the dependency's name. */
function packageOf(path: string): string {
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(
    path,
  );
  if (dependency !== null) return dependency[1]!;
  return path.split("/").slice(0, 2).join("/");
}

/** Bundles {@link TEXT_BUNDLE_ENTRY} (resolved from this app) and measures it; well under a second. */
export async function measureTextBundle(
  options: { readonly entry?: string; readonly top?: number } = {},
): Promise<TextBundleResult> {
  const entry = options.entry ?? TEXT_BUNDLE_ENTRY;
  const { version } = await import("esbuild");
  const result = await build({
    stdin: {
      contents: entry,
      resolveDir: fileURLToPath(new URL("../..", import.meta.url)),
      loader: "ts",
      sourcefile: "text-bundle-entry.ts",
    },
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    conditions: ["lagrange-source"],
    // HiGHS (reached through a module the bundle parses, then drops) names `node:module` in the
    // branch it takes under Node alone; the output is checked for any `node:` import left.
    external: ["node:*"],
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  const js = result.outputFiles[0]!.contents;
  const gzipBytes = gzipSync(js, { level: 9 }).length;
  const output = Object.values(result.metafile.outputs)[0]!;
  const byPackage = new Map<string, number>();
  const modules: { path: string; bytes: number }[] = [];
  for (const [path, input] of Object.entries(output.inputs)) {
    if (input.bytesInOutput === 0) continue;
    const name = packageOf(path);
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
    modules.push({ path: path.replace(/^.*node_modules\//, ""), bytes: input.bytesInOutput });
  }
  return {
    date: new Date().toISOString(),
    esbuild: version,
    entry,
    bytes: js.length,
    gzipBytes,
    target: TEXT_BUNDLE_GZIP_TARGET,
    met: gzipBytes <= TEXT_BUNDLE_GZIP_TARGET,
    nodeImports: output.imports.map((i) => i.path).filter((p) => p.startsWith("node:")),
    packages: [...byPackage]
      .map(([name, bytes]) => ({ name, bytes }))
      .sort((a, b) => b.bytes - a.bytes),
    modules: modules.sort((a, b) => b.bytes - a.bytes).slice(0, options.top ?? 15),
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function textBundleMarkdown(result: TextBundleResult): string {
  return [
    "# The browser bundle that tags text with a model",
    "",
    `${result.date}, esbuild ${result.esbuild}, platform browser, minified, condition lagrange-source, gzip level 9; the model not counted. Entry:`,
    "",
    "```ts",
    result.entry,
    "```",
    "",
    targetsTable([
      {
        name: `gzipped ≤ ${kb(result.target)}`,
        value: `${kb(result.gzipBytes)} (${result.gzipBytes} bytes; ${kb(result.bytes)} minified)`,
        met: result.met,
      },
      {
        name: "no node: import",
        value: result.nodeImports.length === 0 ? "none" : result.nodeImports.join(", "),
        met: result.nodeImports.length === 0,
      },
    ]),
    "## Minified bytes per package",
    "",
    markdownTable(
      ["package", "bytes", "share"],
      result.packages.map((p) => [
        p.name,
        p.bytes,
        `${((100 * p.bytes) / result.bytes).toFixed(1)} %`,
      ]),
    ),
    "## Heaviest modules",
    "",
    markdownTable(
      ["module", "bytes"],
      result.modules.map((m) => [m.path, m.bytes]),
    ),
  ].join("\n");
}
