import type { DecoderRegistry } from "./decoder.js";
import type * as CoreModule from "./index.js";
import * as core from "./index.js";

/**
 * What a plug-in is handed: the app's registry, and this copy of `@lagrange/core`, so a plug-in
 * file needs no package resolution of its own and shares the app's classes (the reason plug-in
 * packages take core as a peer dependency).
 */
export interface PluginHost {
  readonly registry: DecoderRegistry;
  readonly core: typeof CoreModule;
}

/**
 * A plug-in: a module whose default export (or `register` export) is this function. It adds
 * decoders (`registry.addDecoder`) and slaves (`registry.addSlave`); `lagrange tag --plugin
 * ./my-plugin.js --decoder my-dd` then uses them.
 */
export type LagrangePlugin = (host: PluginHost) => void;

/** Identity, for type inference in a plug-in written in TypeScript. */
export function definePlugin(plugin: LagrangePlugin): LagrangePlugin {
  return plugin;
}

/** Runs a plug-in against a registry. */
export function installPlugin(registry: DecoderRegistry, plugin: LagrangePlugin): void {
  plugin({ registry, core });
}
