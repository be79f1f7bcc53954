/**
 * The one tagging entry point: a plain-data {@link TaggingSpec} in, a {@link SequenceTagger} out —
 * the model read once and its kind decided here (and nowhere else), the one decoder registry with
 * the spec's plug-ins, the decoder checked against the model and its options against the
 * decoder's declared ones, the constraints parsed against the model's labels. `lagrange tag`
 * (every input path, `--threads` included), the job queue's worker and the bench call it, so that
 * they all decide the same things the same way.
 */
import { type CrfModel, loadModelFromBytes } from "@lagrange/chain-crf";
import { parseConstraintsFile } from "@lagrange/constraint-templates";
import {
  type DecoderDefinition,
  type DecoderRegistry,
  LagrangeError,
  lagrangeErrorCode,
  resolveDecoderOptions,
  throwIfAborted,
} from "@lagrange/core";
import { checkLineEndings } from "@lagrange/datasets";
import { isL2sModelFile, l2sModelFromBytes } from "@lagrange/l2s";
import {
  decoderCapabilities,
  loadPlugin,
  needsConstraints,
  standardDecoders,
} from "../decoders.js";
import { generalCrfOf } from "../general-crf-settings.js";
import { L2S_PARSER_TASK } from "../l2s/parser.js";
import { L2S_TAGGER_TASK, type L2sTagger, l2sTaggerOf } from "../l2s/tagger.js";
import { modelScheme } from "../model-scheme.js";
import { checkDecoderUse } from "../tagger.js";
import type { ChainTaggerParts } from "./chain-parts.js";
import { chainTaggerOf, defaultChainDecoder } from "./chain-tagger.js";
import { taggingCounts } from "./counters.js";
import { DEFAULT_DECODERS } from "./default-decoders.js";
import { GeneralCrfTagger } from "./general-tagger.js";
import { L2sSequenceTagger } from "./l2s-tagger.js";
import type { SequenceTagger, TaggingSpec } from "./sequence-tagger.js";

export interface OpenTaggerOptions {
  readonly signal?: AbortSignal;
  /** Reads a model path (an app's reader names its option in errors); default: the file's bytes. */
  readonly readModel?: (path: string, signal?: AbortSignal) => Promise<Uint8Array>;
  /** Reads a constraints file given by name only; default: the file's text. */
  readonly readText?: (path: string, signal?: AbortSignal) => Promise<string>;
}

/**
 * Reads the spec's model once, builds the registry once and checks every choice against the
 * model's kind: a decoder that cannot decode it, constraints or slaves it cannot take, options its
 * decoder does not declare are usage errors naming what to do instead.
 */
export async function openTagger(
  spec: TaggingSpec,
  options: OpenTaggerOptions = {},
): Promise<SequenceTagger> {
  const { signal } = options;
  const modelName = typeof spec.model === "string" ? spec.model : (spec.modelName ?? "the model");
  let bytes: Uint8Array;
  if (typeof spec.model === "string") {
    bytes = await (options.readModel ?? readModelFile)(spec.model, signal);
    taggingCounts.modelReads++;
  } else {
    bytes = spec.model;
  }
  throwIfAborted(signal);
  const registry = standardDecoders();
  for (const plugin of spec.plugins ?? []) await loadPlugin(registry, plugin);
  /** The decoder's options: every declared one, at the spec's value or its default. */
  const optionsOf = (decoder: string) =>
    resolveDecoderOptions(registry.decoder(decoder), spec.decoderOptions ?? {});
  const opened = { ...spec, model: bytes, modelName };
  if (isL2sModelFile(bytes)) {
    // The decoder's options are checked first (a value out of range is the error to fix first).
    const decoder = spec.decoder ?? DEFAULT_DECODERS.l2s;
    const decodeOptions = optionsOf(decoder);
    l2sDecoder(spec, registry, modelName);
    const l2s = l2sOf(bytes, modelName);
    await registry.prepare(decoder);
    return new L2sSequenceTagger(
      l2s,
      registry.create(decoder),
      decoder,
      decodeOptions,
      modelName,
      opened,
    );
  }
  const model = loadModelFromBytes(bytes, modelName);
  const general = generalCrfOf(model, modelName);
  if (general !== null) {
    const decoder = spec.decoder ?? DEFAULT_DECODERS["general-crf"];
    const decodeOptions = optionsOf(decoder);
    generalDecoder(spec, registry, modelName);
    await registry.prepare(decoder);
    return new GeneralCrfTagger(
      general,
      registry.create(decoder),
      decoderCapabilities(registry, decoder)?.exactChain === true,
      decoder,
      decodeOptions,
      modelName,
      opened,
    );
  }
  const parts = await chainParts(spec, model, registry, modelName, optionsOf, options);
  await registry.prepare(parts.decoder);
  return chainTaggerOf({
    ...parts,
    spec: {
      ...opened,
      ...(parts.constraintsText === undefined ? {} : { constraints: parts.constraintsText }),
    },
  });
}

/** Through core's one input opener: a device is refused and the kind's size cap applies. */
async function readFileOf(
  kind: "model" | "constraints",
  path: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const { readInput } = await import("@lagrange/core/node");
  return readInput(path, { kind, ...(signal === undefined ? {} : { signal }) });
}

function readModelFile(path: string, signal?: AbortSignal): Promise<Uint8Array> {
  return readFileOf("model", path, signal);
}

/** A constraints file: lines that end in CR alone are refused, as in data files. */
async function readTextFile(path: string, signal?: AbortSignal): Promise<string> {
  const text = new TextDecoder().decode(await readFileOf("constraints", path, signal));
  checkLineEndings(text, path);
  return text;
}

function l2sOf(bytes: Uint8Array, modelName: string): L2sTagger {
  const model = l2sModelFromBytes(bytes, modelName);
  if (model.task === L2S_PARSER_TASK) {
    throw new LagrangeError(
      "usage",
      `${modelName} is an L2S dependency parser model (lagrange train --learner l2s --task parser): it parses, it does not tag; use lagrange parse --model ${modelName}`,
    );
  }
  if (model.task !== L2S_TAGGER_TASK) {
    throw new LagrangeError(
      "usage",
      `${modelName} is a learning-to-search ${model.task} model: it does not tag`,
    );
  }
  return l2sTaggerOf(model);
}

function refuse(
  spec: TaggingSpec,
  modelName: string,
  what: string,
  fields: readonly ("constraints" | "slaves" | "plugins")[],
): void {
  const flags = { constraints: "--constraints", slaves: "--slave", plugins: "--plugin" } as const;
  const given = fields.filter((f) =>
    f === "constraints" ? spec.constraints !== undefined : (spec[f] ?? []).length > 0,
  );
  if (given.length > 0) {
    throw new LagrangeError(
      "usage",
      `${given.map((f) => flags[f]).join(", ")}: ${modelName} is ${what}`,
    );
  }
}

/**
 * Whether a decoder can decode an L2S tagger's chain scores alone: not one that needs constraints,
 * slaves or a general CRF's patterns (greedy takes constraints but does not need them: without any
 * it is the policy's own left-to-right prediction).
 */
function decodesScoresAlone(definition: DecoderDefinition): boolean {
  if (definition.accepts.patterns === true || (definition.withSlaves ?? []).length > 0)
    return false;
  return !needsConstraints(definition);
}

function l2sDecoder(spec: TaggingSpec, registry: DecoderRegistry, modelName: string): string {
  refuse(
    spec,
    modelName,
    "an L2S tagger, decoded from its scores alone; learned constraints and slaves are for CRF models",
    ["constraints", "slaves"],
  );
  const name = spec.decoder ?? DEFAULT_DECODERS.l2s;
  if (!decodesScoresAlone(registry.decoder(name))) {
    const fit = registry
      .decoders()
      .filter(decodesScoresAlone)
      .map((d) => d.name);
    throw new LagrangeError(
      "usage",
      `decoder ${name} needs constraints, slaves or a general CRF's patterns; ${modelName} is an L2S tagger, decoded from its scores alone: choose ${fit.join(", ")} (default ${DEFAULT_DECODERS.l2s}, the policy's own prediction)`,
    );
  }
  return name;
}

function generalDecoder(spec: TaggingSpec, registry: DecoderRegistry, modelName: string): string {
  refuse(
    spec,
    modelName,
    "a general CRF (lagrange train --model general), decoded with its own consistency factors; learned constraints, slaves and plug-ins are for linear-chain models",
    ["constraints", "slaves", "plugins"],
  );
  const name = spec.decoder ?? DEFAULT_DECODERS["general-crf"];
  const definition = registry.decoder(name); // an unknown name: a usage error listing the known
  if (definition.capabilities?.exactChain !== true && definition.accepts.patterns !== true) {
    const fit = registry
      .decoders()
      .filter((d) => d.accepts.patterns === true)
      .map((d) => d.name);
    const chainOnly = registry
      .decoders()
      .filter((d) => d.capabilities?.exactChain === true)
      .map((d) => d.name);
    throw new LagrangeError(
      "usage",
      `decoder ${name} does not decode a general CRF's higher-order patterns; ${modelName} is a general CRF: choose ${fit.join(", ")} (default ${DEFAULT_DECODERS["general-crf"]}), or ${chainOnly.join(", ")} for the chain alone`,
    );
  }
  return name;
}

/** A chain CRF's decoder, options, constraints and slaves, checked against each other. */
async function chainParts(
  asked: TaggingSpec,
  model: CrfModel,
  registry: DecoderRegistry,
  modelName: string,
  optionsOf: (decoder: string) => ChainTaggerParts["decodeOptions"],
  options: OpenTaggerOptions,
): Promise<
  Omit<ChainTaggerParts, "spec"> & {
    readonly decoder: string;
    readonly constraintsText: { readonly source: string; readonly text: string } | undefined;
  }
> {
  // Constraints the model records (a task preset learned them) when the user names none and a
  // decoder that takes them: `--decoder viterbi` gives the chain alone, `--constraints` replaces them.
  const recorded =
    asked.constraints === undefined &&
    model.learnedConstraints !== null &&
    registry.decoder(asked.decoder ?? model.decoder ?? "viterbi").accepts.constraints
      ? {
          source: `${modelName} (its recorded constraints)`,
          text: JSON.stringify(model.learnedConstraints),
        }
      : undefined;
  const spec = recorded === undefined ? asked : { ...asked, constraints: recorded };
  // The decoder the model was meant for (a task preset records it) unless the user names one;
  // neither: the constraints decide (document constraints need a constrained decoder).
  const named = spec.decoder ?? model.decoder ?? undefined;
  const slaves = spec.slaves ?? [];
  const checked = (decoder: string) => {
    const decodeOptions = optionsOf(decoder);
    checkChainDecoderUse(registry, decoder, spec);
    return decodeOptions;
  };
  const namedOptions = named === undefined ? undefined : checked(named);
  const given = spec.constraints;
  const constraintsText =
    given === undefined
      ? undefined
      : {
          source: given.source,
          text:
            given.text ?? (await (options.readText ?? readTextFile)(given.source, options.signal)),
        };
  const file =
    constraintsText === undefined
      ? undefined
      : parseConstraintsFile(constraintsText.text, {
          source: constraintsText.source,
          expectedLabels: model.labels.names(),
          scheme: modelScheme(model),
        });
  const decoder = named ?? defaultChainDecoder(file?.entries);
  const decodeOptions = namedOptions ?? checked(decoder);
  const definition = registry.decoder(decoder);
  return {
    model,
    modelName,
    registry,
    decoder,
    decodeOptions,
    constraints: file?.entries,
    ...(file === undefined ? {} : { constraintKeying: file.index.keying }),
    ...(file?.groups === undefined ? {} : { documentGroups: file.groups }),
    constraintsText,
    slaves,
    // A decoder that takes constraints but needs none (greedy) given none reports nothing of them.
    constrained:
      definition.accepts.constraints &&
      (needsConstraints(definition) || given !== undefined || slaves.length > 0),
  };
}

/**
 * `checkDecoderUse` for a linear-chain model: a decoder of higher-order patterns (two-slave,
 * naive-dd) given nothing to decode besides the chain is told that it needs a general model.
 */
function checkChainDecoderUse(registry: DecoderRegistry, decoder: string, spec: TaggingSpec): void {
  const modelName = typeof spec.model === "string" ? spec.model : (spec.modelName ?? "the model");
  try {
    checkDecoderUse(registry, decoder, {
      constraints: spec.constraints !== undefined,
      slaves: spec.slaves ?? [],
    });
  } catch (error) {
    const definition = registry.decoder(decoder);
    const alone = spec.constraints === undefined && (spec.slaves ?? []).length === 0;
    if (definition.accepts.patterns === true && alone && lagrangeErrorCode(error) === "usage") {
      throw new LagrangeError(
        "usage",
        `decoder ${decoder} decodes a general CRF's higher-order patterns: it needs a general model (lagrange train --model general --groups tweets|documents); ${modelName} is a linear-chain CRF (tag it with viterbi, or give ${decoder} learned constraints)`,
        { cause: error },
      );
    }
    throw error;
  }
}
