/**
 * What the recipes' browser-safe modules need from Node: turning a plug-in path into an importable
 * URL. The package imports this module as "#platform" (package.json "imports"); bundlers for the
 * browser resolve it to ./browser.ts.
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The URL of the module at `path`, relative to `cwd` (default: the working directory). */
export function moduleUrlOf(path: string, cwd?: string): string {
  return pathToFileURL(isAbsolute(path) ? path : resolve(cwd ?? process.cwd(), path)).href;
}
