import * as contract from "./contract.js";
import type { DecoderRegistry } from "./decoder.js";
import {
  installingPlugin,
  isPluginErrorOf,
  isThenable,
  messageOf,
  pluginError,
} from "./plugin-guard.js";

/**
 * What a plug-in is handed: the app's registry, and this copy of `@lagrange/core`, so a plug-in
 * file needs no package resolution of its own and shares the app's classes (the reason plug-in
 * packages take core as a peer dependency).
 */
export interface PluginHost {
  readonly registry: DecoderRegistry;
  readonly core: CoreModule;
}

/** The values of `@lagrange/core`'s main entry: the contract plus the plug-in functions. */
type CoreModule = typeof contract & {
  readonly definePlugin: typeof definePlugin;
  readonly installPlugin: typeof installPlugin;
};

/** The copy of core plug-ins are handed (frozen, as a module namespace is). */
const core: CoreModule = Object.freeze({ ...contract, definePlugin, installPlugin });

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

/**
 * Runs a plug-in against a registry. `source` names it in errors (its module path; default its
 * function's name): what the plug-in throws while installing, and every decoder and slave it adds —
 * checked at each call, so one that throws, returns a Promise, a label out of range, a labelling
 * of the wrong length or a NaN score — is a `bad-input` error naming it. A plug-in registers
 * synchronously: one that returns a Promise is refused.
 */
export function installPlugin(
  registry: DecoderRegistry,
  plugin: LagrangePlugin,
  source?: string,
): void {
  const origin = `plug-in ${source ?? (plugin.name || "(anonymous function)")}`;
  let returned: unknown;
  try {
    returned = installingPlugin(registry, origin, () => plugin({ registry, core }));
  } catch (error) {
    if (isPluginErrorOf(error, origin)) throw error;
    throw pluginError(origin, `installing it threw: ${messageOf(error)}`, error);
  }
  if (isThenable(returned)) {
    // Whatever it would add later would escape the checks: refuse it now.
    (returned as Promise<unknown>).then(undefined, () => {});
    throw pluginError(
      origin,
      "its default export returned a Promise: a plug-in adds its decoders and slaves synchronously",
    );
  }
}
