/**
 * `@lagrange/core`: the contract every package and app speaks — chain problems and linear
 * constraints over the indicator vector, the slave contract, decoders and their registry, declared
 * decoder options, decodings, label restrictions, plug-ins, errors, the seeded generator and
 * cooperative yielding. The parts that only solver packages need sit in subpath entries:
 * `./dual-decomposition` (the master's parts, AD3, solve limits), `./chain` (the chain dynamic
 * programs, restrictions of chain scores), `./factor-graph`, `./bytes`; `./node`, `./wasm` and `./testing` as before.
 */
export * from "./contract.js";
export { definePlugin, installPlugin, type LagrangePlugin, type PluginHost } from "./plugin.js";
