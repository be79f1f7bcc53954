/**
 * The module chain-crf's objective workers import to rebuild a bcrf or mean-field training
 * objective (see objectives.ts's sourceOf): a file of its own so that a bundle can keep it as an
 * entry point under this name.
 */
export { restoreObjective } from "./objectives.js";
