/**
 * The entry of the built binary (dist/lagrange.js): runs the CLI on the process's arguments. A
 * file of its own, because an installed binary is started through a symbolic link (`bin/lagrange`)
 * whose path is not the module's, so main.ts's own entry check cannot tell.
 */
import { runAsProcess } from "./main.js";

await runAsProcess(process.argv.slice(2));
