/** The browser's "#platform" (see ./node.ts): a plug-in is a URL, resolved against the page. */
import type * as NodePlatform from "./node.js";

export const moduleUrlOf: typeof NodePlatform.moduleUrlOf = (path, base) =>
  new URL(path, base ?? (globalThis as { location?: { href: string } }).location?.href).href;
