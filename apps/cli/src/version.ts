import { readFileSync } from "node:fs";

/** The version of @lagrange/cli: its package.json, one directory above src/ and dist/ alike. */
export function version(): string {
  const manifest = readFileSync(new URL("../package.json", import.meta.url), "utf8");
  return (JSON.parse(manifest) as { version: string }).version;
}
