/**
 * The one tagging entry point: a plain-data {@link TaggingSpec} in, everything tagging needs out —
 * the model read once whatever its kind (chain CRF, general CRF, L2S tagger), the one decoder
 * registry with the spec's plug-ins, the decoder checked against the model and its options
 * against the decoder's declared ones, the constraints parsed against the model's labels.
 * `lagrange tag` (every input path, `--threads` included), the job queue's worker and the bench
 * call it, so that they all decide the same things the same way.
 */
import { type CrfModel, loadModelFromBytes } from "@lagrange/chain-crf";
import { type ConstraintsFileEntry, parseConstraintsFile } from "@lagrange/constraint-templates";
import {
  type DecoderDefinition,
  type DecoderOptionValue,
  type DecoderRegistry,
  LagrangeError,
  lagrangeErrorCode,
  resolveDecoderOptions,
  throwIfAborted,
} from "@lagrange/core";
import { checkLineEndings } from "@lagrange/datasets";
import { isL2sModelFile, l2sModelFromBytes } from "@lagrange/l2s";
import { loadPlugin, standardDecoders } from "../decoders.js";
import { GENERAL_CRF_DEFAULTS, type GeneralCrf, generalCrfOf } from "../general-crf.js";
import { L2S_PARSER_TASK } from "../l2s/parser.js";
import { L2S_TAGGER_TASK, type L2sTagger, l2sTaggerOf } from "../l2s/tagger.js";
import { checkDecoderUse, Tagger } from "../tagger.js";
import { taggingCounts } from "./counters.js";

/** What to tag with, as plain data (it crosses threads and queues as it is). */
export interface TaggingSpec {
  /** The model file's path, or its bytes. */
  readonly model: string | Uint8Array;
  /** The model's name in messages when `model` is bytes (default `the model`). */
  readonly modelName?: string;
  /** A registered decoder; default: the one the model records (settings.decoder), else by its kind: viterbi, two-slave (general CRF), greedy (L2S). */
  readonly decoder?: string;
  /** The decoder's options by their declared names (`max-iterations`, `tau`, …), values or strings. */
  readonly decoderOptions?: Readonly<Record<string, DecoderOptionValue>>;
  /**
   * Learned constraints: a constraints file by its name, with its text (read by the caller: a
   * pipe's text, or one sent to a worker) or without (read here once the decoder is known to take
   * them).
   */
  readonly constraints?: { readonly source: string; readonly text?: string };
  /** Plug-in modules (paths) that add decoders and slaves. */
  readonly plugins?: readonly string[];
  /** Plug-in slaves added to every sentence's problem. */
  readonly slaves?: readonly string[];
}

export interface OpenTaggerOptions {
  readonly signal?: AbortSignal;
  /** Reads a model path (an app's reader names its option in errors); default: the file's bytes. */
  readonly readModel?: (path: string, signal?: AbortSignal) => Promise<Uint8Array>;
  /** Reads a constraints file given by name only; default: the file's text. */
  readonly readText?: (path: string, signal?: AbortSignal) => Promise<string>;
}

interface OpenedCommon {
  /** The spec it was opened from (what worker threads are sent). */
  readonly spec: TaggingSpec;
  /** The model file's bytes, as read (workers are sent these: the file is not read again). */
  readonly modelBytes: Uint8Array;
  readonly modelName: string;
  /** The registry, built once, with the spec's plug-ins; the decoder is prepared. */
  readonly registry: DecoderRegistry;
  readonly decoder: string;
  /** The decoder's options: every declared one, at the spec's value or its default. */
  readonly decodeOptions: Readonly<Record<string, DecoderOptionValue>>;
}

/** A linear-chain CRF ready to tag: {@link Tagger} for sentences; the parts for other paths. */
export interface OpenedChainTagger extends OpenedCommon {
  readonly kind: "crf";
  readonly model: CrfModel;
  readonly constraints: readonly ConstraintsFileEntry[] | undefined;
  /** The constraints file's text and name (what worker threads parse). */
  readonly constraintsText: { readonly text: string; readonly source: string } | undefined;
  readonly slaves: readonly string[];
  /** The decoder decodes under constraints (its statistics mean something). */
  readonly constrained: boolean;
  /** A fresh tagger (its own decoder and clock). */
  tagger(): Tagger;
}

/** A general CRF: groups of sentences decoded with their consistency factors. */
export interface OpenedGeneralTagger extends OpenedCommon {
  readonly kind: "general-crf";
  readonly crf: GeneralCrf;
  /** `viterbi`: the chain alone, the consistency factors ignored. */
  readonly chainOnly: boolean;
}

/** A learning-to-search tagger, decoded from its chain scores alone. */
export interface OpenedL2sTagger extends OpenedCommon {
  readonly kind: "l2s";
  readonly l2s: L2sTagger;
}

export type OpenedTagger = OpenedChainTagger | OpenedGeneralTagger | OpenedL2sTagger;

/** The decoder an L2S tagger is decoded with when none is given: its policy's own prediction. */
export const L2S_DEFAULT_DECODER = "greedy";

/**
 * Reads the spec's model once, builds the registry once and checks every choice against the
 * model's kind: a decoder that cannot decode it, constraints or slaves it cannot take, options its
 * decoder does not declare are usage errors naming what to do instead.
 */
export async function openTagger(
  spec: TaggingSpec,
  options: OpenTaggerOptions = {},
): Promise<OpenedTagger> {
  const { signal } = options;
  const modelName = typeof spec.model === "string" ? spec.model : (spec.modelName ?? "the model");
  let modelBytes: Uint8Array;
  if (typeof spec.model === "string") {
    modelBytes = await (options.readModel ?? readModelFile)(spec.model, signal);
    taggingCounts.modelReads++;
  } else {
    modelBytes = spec.model;
  }
  throwIfAborted(signal);
  const registry = standardDecoders();
  for (const plugin of spec.plugins ?? []) await loadPlugin(registry, plugin);
  const common = (decoder: string) => ({
    spec,
    modelBytes,
    modelName,
    registry,
    decoder,
    decodeOptions: resolveDecoderOptions(registry.decoder(decoder), spec.decoderOptions ?? {}),
  });
  let opened: OpenedTagger;
  if (isL2sModelFile(modelBytes)) {
    // The decoder's options are checked first (a value out of range is the error to fix first).
    const parts = common(spec.decoder ?? L2S_DEFAULT_DECODER);
    l2sDecoder(spec, registry, modelName);
    opened = { kind: "l2s", l2s: l2sOf(modelBytes, modelName), ...parts };
  } else {
    const model = loadModelFromBytes(modelBytes, modelName);
    const general = generalCrfOf(model, modelName);
    if (general !== null) {
      const parts = common(spec.decoder ?? GENERAL_CRF_DEFAULTS.decoder);
      generalDecoder(spec, registry, modelName);
      opened = {
        kind: "general-crf",
        crf: general,
        chainOnly: parts.decoder === "viterbi",
        ...parts,
      };
    } else {
      opened = await chainTagger(spec, model, registry, common, options);
    }
  }
  await registry.prepare(opened.decoder);
  return opened;
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
  return definition.name === L2S_DEFAULT_DECODER || !definition.accepts.constraints;
}

function l2sDecoder(spec: TaggingSpec, registry: DecoderRegistry, modelName: string): string {
  refuse(
    spec,
    modelName,
    "an L2S tagger, decoded from its scores alone; learned constraints and slaves are for CRF models",
    ["constraints", "slaves"],
  );
  const name = spec.decoder ?? L2S_DEFAULT_DECODER;
  if (!decodesScoresAlone(registry.decoder(name))) {
    const fit = registry
      .decoders()
      .filter(decodesScoresAlone)
      .map((d) => d.name);
    throw new LagrangeError(
      "usage",
      `decoder ${name} needs constraints, slaves or a general CRF's patterns; ${modelName} is an L2S tagger, decoded from its scores alone: choose ${fit.join(", ")} (default ${L2S_DEFAULT_DECODER}, the policy's own prediction)`,
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
  const name = spec.decoder ?? GENERAL_CRF_DEFAULTS.decoder;
  const definition = registry.decoder(name); // an unknown name: a usage error listing the known
  if (name !== "viterbi" && definition.accepts.patterns !== true) {
    const fit = registry
      .decoders()
      .filter((d) => d.accepts.patterns === true)
      .map((d) => d.name);
    throw new LagrangeError(
      "usage",
      `decoder ${name} does not decode a general CRF's higher-order patterns; ${modelName} is a general CRF: choose ${fit.join(", ")} (default ${GENERAL_CRF_DEFAULTS.decoder}), or viterbi for the chain alone`,
    );
  }
  return name;
}

async function chainTagger(
  spec: TaggingSpec,
  model: CrfModel,
  registry: DecoderRegistry,
  common: (decoder: string) => OpenedCommon,
  options: OpenTaggerOptions,
): Promise<OpenedChainTagger> {
  // The decoder the model was meant for (a task preset records it) unless the user names one.
  const recorded = model.settings.decoder;
  const name = spec.decoder ?? (typeof recorded === "string" ? recorded : "viterbi");
  const slaves = spec.slaves ?? [];
  const definition = registry.decoder(name);
  // greedy takes constraints but does not need them: alone, it is a left-to-right greedy search
  // of the chain's scores (and nothing it reports is about constraints).
  const alone =
    name === L2S_DEFAULT_DECODER && spec.constraints === undefined && slaves.length === 0;
  const opened = common(name);
  if (!alone) checkChainDecoderUse(registry, name, spec);
  const given = spec.constraints;
  const constraintsText =
    given === undefined
      ? undefined
      : {
          source: given.source,
          text:
            given.text ?? (await (options.readText ?? readTextFile)(given.source, options.signal)),
        };
  const constraints =
    constraintsText === undefined
      ? undefined
      : parseConstraintsFile(constraintsText.text, {
          source: constraintsText.source,
          expectedLabels: model.labels.names(),
        }).entries;
  return {
    kind: "crf",
    model,
    constraints,
    constraintsText,
    slaves,
    constrained: definition.accepts.constraints && !alone,
    ...opened,
    tagger: () =>
      new Tagger({
        model,
        registry,
        // greedy alone: built here, past the check that a constrained decoder is given some.
        decoder: alone ? registry.create(name) : name,
        ...(constraints === undefined ? {} : { constraints }),
        slaves,
        decodeOptions: opened.decodeOptions,
      }),
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
