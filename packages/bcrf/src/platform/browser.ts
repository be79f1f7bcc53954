/** The browser's "#platform" (see ./node.ts): no worker threads, so parallel IBP says so. */
import type * as NodePlatform from "./node.js";

export const ParallelBcrf: Pick<typeof NodePlatform.ParallelBcrf, "open"> = {
  open: () =>
    Promise.reject(
      new Error(
        "@lagrange/bcrf: parallel IBP needs Node.js worker threads; in a browser, decode on one thread (the bcrf decoder or Ibp)",
      ),
    ),
};
