import { prepareIlp as loadRuntime } from "./highs-runtime.js";

/**
 * Loads HiGHS so that the ILP decoders and solvers can run synchronously. Declared here, apart from
 * the runtime module, so that the package's declarations never import the `highs` package's
 * types (they need the DOM lib's WebAssembly namespace, which a Node project does not have).
 */
export const prepareIlp: () => Promise<void> = loadRuntime;
