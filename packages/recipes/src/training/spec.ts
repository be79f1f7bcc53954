import type { TrainingObjectiveName } from "@lagrange/bcrf";
import type { TrainingAlgorithm } from "@lagrange/chain-crf";
import type { LabelScheme, SchemeName } from "@lagrange/datasets";
import type { RollIn, RollOut } from "@lagrange/l2s";
import { L2S_PARSER_DEFAULT_LEARNER } from "../l2s/parser.js";
import { L2S_TAGGER_DEFAULT_LEARNER } from "../l2s/tagger.js";

/**
 * How a chain CRF is trained, as plain data: what `lagrange train`'s flags and the bench's rows
 * set. Left out, a value comes from the task preset (its stopping rule, c2) or the trainer.
 */
export interface TrainingSpec {
  readonly algorithm: TrainingAlgorithm;
  readonly c1?: number;
  readonly c2?: number;
  readonly maxIterations?: number;
  /**
   * L-BFGS / OWL-QN: CRFsuite's rule, relative loss decrease over 10 iterations below this.
   * `maxIterations` or `delta` given, a task preset's held-out rule does not apply (nor with dev).
   */
  readonly delta?: number;
  readonly threads?: number;
  readonly minAttributeFrequency?: number;
  /** Early stopping: held-out evaluations without improvement. */
  readonly patience?: number;
  readonly constrainedTraining?: boolean;
  /** `2`: label-trigram weights too (`trigrams`: the observed ones, default, or all). */
  readonly order?: 1 | 2;
  readonly trigrams?: "observed" | "all";
  /** `LABEL=w` or `balanced[:POWER]` specs (see `parseClassWeights`). */
  readonly classWeights?: readonly string[];
  readonly allowNoProgress?: boolean;
  /** Default `crf` (the likelihood). */
  readonly objective?: TrainingObjectiveName;
  /** bcrf: IBP half-steps per loss evaluation; mean-field: unrolled updates. */
  readonly objectiveIterations?: number;
  /** The gold column holds partial annotations. */
  readonly partialLabels?: boolean;
  readonly scheme?: LabelScheme;
  /**
   * The scheme a chain CRF trains under (its gold labels converted in, its output converted back
   * to `scheme`): default the task preset's `internalScheme` (the NER presets' BIOES); `keep`:
   * the data's. Not with partial labels (their default is `keep`), two stages or a general CRF,
   * which train under the data's scheme.
   */
  readonly internalScheme?: SchemeName | "keep";
  /**
   * A task preset whose training defaults apply when the features name none (a bench row on a
   * task's base preset); the features' own task preset comes first.
   */
  readonly taskPreset?: string;
  /** `general`: the chain CRF, then consistency weights over `groups` (qian-liu2014). */
  readonly model?: "chain" | "general";
  readonly groups?: string;
  /** Two stages (Krishnan & Manning 2006), jackknifed over `folds`. */
  readonly twoStage?: boolean;
  readonly folds?: number;
  /**
   * Document constraints after the chain (`auto`, the default: when the task preset asks for
   * them, the NER presets; learned on jackknifed train, recorded only when a held-out fold gains).
   */
  readonly documentConstraints?: "auto" | "off";
}

/** What `L2sTrainingSpec.task` names: the left-to-right tagger's two tasks, and the parser. */
export const L2S_TASKS = ["pos", "ner", "parser"] as const;
export type L2sTask = (typeof L2S_TASKS)[number];

/** How an L2S model is trained, as plain data: what `lagrange train --learner l2s` sets. */
export interface L2sTrainingSpec {
  readonly learner: "l2s";
  /** `pos`, `ner` (the left-to-right tagger) or `parser` (arc-hybrid, on CoNLL-U); checked. */
  readonly task: L2sTask;
  /** `csoaa` or `perceptron`; default the task's (the tagger's csoaa, the parser's perceptron). */
  readonly baseLearner?: string;
  readonly bits?: number;
  readonly learningRate?: number;
  readonly passes?: number;
  readonly rollIn?: RollIn;
  readonly rollOut?: RollOut;
  readonly seed?: number;
  /** `LABEL=w` or `balanced[:POWER]` specs (the tagger's only). */
  readonly classWeights?: readonly string[];
  /** The parser: relations too (default true). */
  readonly labelled?: boolean;
}

/** The base learner of a task when none is named (the recipes' defaults). */
export function defaultBaseLearner(task: string): string {
  return task === "parser" ? L2S_PARSER_DEFAULT_LEARNER : L2S_TAGGER_DEFAULT_LEARNER;
}
