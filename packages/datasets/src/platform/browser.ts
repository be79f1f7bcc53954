/** The browser's "#platform" (see ./node.ts): there is no file system to read a path from. */
import type * as NodePlatform from "./node.js";

export const openFileChunks: typeof NodePlatform.openFileChunks = (path) => {
  throw new Error(
    `@lagrange/datasets: reading the file ${String(path)} needs Node.js; in a browser, pass the text (an array of strings or a fetch body) instead of a path`,
  );
};

export const pathOfUrl: typeof NodePlatform.pathOfUrl = (url) => decodeURIComponent(url.pathname);

export const writeFileAtomic: typeof NodePlatform.writeFileAtomic = (path) =>
  Promise.reject(
    new Error(
      `@lagrange/datasets: writing the file ${path} needs Node.js; in a browser, format the records to a string (the format's format function, e.g. formatConll)`,
    ),
  );
