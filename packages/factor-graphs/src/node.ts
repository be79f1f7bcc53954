/** `@lagrange/factor-graphs/node`: reading a graph from a file, through core's one input opener. */
export { readFactorGraphFile } from "./read-file.js";
