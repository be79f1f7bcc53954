/**
 * The browser's "#platform" (see ./node.ts): no worker threads and no file system, so these fail
 * with a message that says what to do instead.
 */
import type * as NodePlatform from "./node.js";

function needsNode(what: string, instead: string): Error {
  return new Error(`@lagrange/chain-crf: ${what} needs Node.js; in a browser, ${instead}`);
}

export const ObjectivePool: Pick<typeof NodePlatform.ObjectivePool, "open"> = {
  open: () =>
    Promise.reject(needsNode("training on worker threads (threads > 1)", "train with threads: 1")),
};

export const readFileBytes: typeof NodePlatform.readFileBytes = (path) =>
  Promise.reject(
    needsNode(`reading ${path}`, "fetch the model's bytes and call loadModelFromBytes(bytes)"),
  );

export const writeFileAtomic: typeof NodePlatform.writeFileAtomic = (path) =>
  Promise.reject(needsNode(`writing ${path}`, "save the bytes of modelToBytes(model) yourself"));
