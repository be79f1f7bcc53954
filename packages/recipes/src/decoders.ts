import { bcrfDefinition, meanFieldDefinition } from "@lagrange/bcrf";
import { crfChainSlaves } from "@lagrange/chain-crf";
import {
  type DecoderDefinition,
  DecoderRegistry,
  installPlugin,
  LagrangeError,
  type LagrangePlugin,
  viterbiDefinition,
} from "@lagrange/core";
import { exactDefinition, twoPhaseDefinition } from "@lagrange/ilp";
import { greedyDefinition } from "@lagrange/l2s";
import { naiveDDDefinition, twoSlaveDefinition } from "@lagrange/mincut";
import { hardDDDefinition, softDDDefinition } from "@lagrange/soft-dd";
import { moduleUrlOf } from "#platform";
import { taggingCounts } from "./tagging/counters.js";

/**
 * The registry every app decodes through: `viterbi`, `soft-dd` and `hard-dd` over chain-crf's fast
 * chain oracle, and ilp's `exact` and `two-phase` (await `registry.prepare(name)` before creating
 * them: HiGHS loads asynchronously), and mincut's `two-slave` and `naive-dd` for general CRFs
 * (higher-order patterns), and bcrf's `bcrf` and `mean-field` (corro's parallel approximate
 * decoders), and l2s's `greedy` (learning to search's left-to-right policy, constraints as
 * allowed labels and costs: how an L2S tagger's scores are decoded). A user's plug-ins add theirs
 * with {@link loadPlugin}.
 */
export function standardDecoders(): DecoderRegistry {
  taggingCounts.registries++;
  const registry = new DecoderRegistry({ chainSlaves: crfChainSlaves });
  for (const definition of STANDARD_DECODERS) registry.addDecoder(definition);
  return registry;
}

/**
 * The registry of the chain alone: `viterbi` over chain-crf's chain oracle. What tagging text with a
 * chain CRF needs, and nothing more: a page that imports only this keeps the other decoders' code
 * (HiGHS as WebAssembly, mincut, bcrf) out of its bundle.
 */
export function chainDecoders(): DecoderRegistry {
  taggingCounts.registries++;
  const registry = new DecoderRegistry({ chainSlaves: crfChainSlaves });
  registry.addDecoder(viterbiDefinition);
  return registry;
}

/**
 * The standard decoders' definitions, in the order listings show them: what an app reads to build
 * its decoder flags and help without building a registry.
 */
export const STANDARD_DECODERS: readonly DecoderDefinition[] = [
  viterbiDefinition,
  softDDDefinition,
  hardDDDefinition,
  exactDefinition,
  twoPhaseDefinition,
  twoSlaveDefinition,
  naiveDDDefinition,
  bcrfDefinition,
  meanFieldDefinition,
  greedyDefinition,
];

/**
 * Imports a plug-in module (a path, relative to `cwd`; in a browser, a URL relative to the page)
 * and installs it into `registry`. The module's
 * default export, or its `register` export, must be a {@link LagrangePlugin}. A module that cannot
 * be imported or exports no plug-in is a `bad-input` error naming the file.
 */
export async function loadPlugin(
  registry: DecoderRegistry,
  path: string,
  cwd?: string,
): Promise<void> {
  let module: { default?: unknown; register?: unknown };
  try {
    module = (await import(/* @vite-ignore */ moduleUrlOf(path, cwd))) as typeof module;
  } catch (error) {
    throw new LagrangeError(
      "bad-input",
      `plug-in ${path}: cannot import it (${(error as Error).message.split("\n")[0]})`,
      { cause: error },
    );
  }
  const plugin = typeof module.default === "function" ? module.default : module.register;
  if (typeof plugin !== "function") {
    throw new LagrangeError(
      "bad-input",
      `plug-in ${path}: expected a default export (or a "register" export) that is a function (host) => void`,
    );
  }
  // Installed under its path: errors from it, and from what it adds, name the file.
  installPlugin(registry, plugin as LagrangePlugin, path);
}

/** What a decoder declares it can do (empty for one that declares nothing). */
export type DecoderCapabilities = NonNullable<DecoderDefinition["capabilities"]>;

/**
 * The declared capabilities of a decoder by name; undefined for a decoder the registry does not
 * know (one built elsewhere and handed over).
 */
export function decoderCapabilities(
  registry: DecoderRegistry,
  name: string,
): DecoderCapabilities | undefined {
  const definition = registry.decoders().find((d) => d.name === name);
  return definition === undefined ? undefined : (definition.capabilities ?? {});
}

/**
 * Whether decoding with it is pointless without constraints or slaves: by default, a decoder that
 * takes constraints needs them (greedy declares otherwise: alone, it searches the chain's scores).
 */
export function needsConstraints(definition: DecoderDefinition): boolean {
  return definition.capabilities?.needsConstraints ?? definition.accepts.constraints;
}
