/** The browser's "#platform" (see ./node.ts): no file system, so model files go through bytes. */
import type * as NodePlatform from "./node.js";

function needsNode(what: string, instead: string): Error {
  return new Error(`@lagrange/l2s: ${what} needs Node.js; in a browser, ${instead}`);
}

export const readFileBytes: typeof NodePlatform.readFileBytes = (path) =>
  Promise.reject(
    needsNode(`reading ${path}`, "fetch the model's bytes and call l2sModelFromBytes(bytes)"),
  );

export const writeFileAtomic: typeof NodePlatform.writeFileAtomic = (path) =>
  Promise.reject(needsNode(`writing ${path}`, "save the bytes of l2sModelToBytes(model) yourself"));
