/**
 * What bcrf needs from Node: the worker-thread parallel IBP. The package imports this module as
 * "#platform" (package.json "imports"); bundlers for the browser resolve it to ./browser.ts, so
 * the main entry bundles with no `node:` import.
 */
export { ParallelBcrf } from "../parallel/parallel-ibp.js";
