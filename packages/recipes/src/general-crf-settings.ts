import { type CrfModel, type JsonValue, MAX_WEIGHT_MAGNITUDE } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import {
  CONSISTENCY_FEATURES,
  type ConsistencyFactorOptions,
  type ConsistencyModel,
  consistencyFeatureNames,
  type TweetGroupOptions,
} from "@lagrange/mincut";
import { DEFAULT_DECODERS } from "./tagging/default-decoders.js";

/** How sentences form the groups a general CRF links: tweet clusters or documents. */
export type GroupingKind = "tweets" | "documents";
export const GROUPING_KINDS: readonly GroupingKind[] = ["tweets", "documents"];

/**
 * How training chose the consistency weights on a held-out cut of the training data (the groups
 * of jackknife fold 1, scored by the chain CRF that did not see them and left out of the
 * perceptron): the averaged weights after `epochs` epochs, times `scale`, or the chain alone
 * (`scale` 0, `epochs` 0) when no candidate beat it there. Scores are chunk F1 (token accuracy
 * for labels without chunks), 0…1.
 */
export interface ConsistencySelection {
  readonly heldOutGroups: number;
  readonly heldOutSentences: number;
  /** "f1" or "accuracy": what the scores measure. */
  readonly measure: "f1" | "accuracy";
  /** The chain alone on the cut. */
  readonly chainScore: number;
  /** The chosen model on the cut (= chainScore when the chain alone was chosen). */
  readonly generalScore: number;
  readonly epochs: number;
  readonly scale: number;
  /** The averaged weights (scale 1) on the cut after each epoch. */
  readonly perEpoch: readonly number[];
}

/** What a general CRF records besides its chain model (stored in the model file's settings). */
export interface GeneralCrfSettings {
  readonly groups: GroupingKind;
  readonly grouping?: TweetGroupOptions;
  readonly factors?: ConsistencyFactorOptions;
  /** Set by training with a held-out cut (folds ≥ 2): what was chosen there, and why. */
  readonly selection?: ConsistencySelection;
}

/** A general CRF: a chain CRF plus consistency potentials over groups (qian-liu2014). */
export interface GeneralCrf {
  readonly model: CrfModel;
  readonly consistency: ConsistencyModel;
  readonly settings: GeneralCrfSettings;
}

const SETTINGS_KEY = "generalCrf";

/** Defaults of general-CRF training that apps show: jackknife folds, epochs (the paper's 10), decoder. */
export const GENERAL_CRF_DEFAULTS = {
  folds: 4,
  epochs: 10,
  decoder: DEFAULT_DECODERS["general-crf"],
} as const;

/**
 * Bounds on the factor options a model file may carry. The defaults are 3 and 10, and training
 * from the command line never changes them; beyond these a crafted file could make one repeated
 * word link millions of phrase pairs (maxOccurrences² / 2 factors) or loop over lengths no
 * sentence has.
 */
const MAX_STORED_PHRASE_LENGTH = 16;
const MAX_STORED_OCCURRENCES = 100;

/**
 * The general CRF a model file carries, or null for a plain chain CRF. Its part of the file's
 * settings is validated as any model data is (ids in range, finite weights, bounded options):
 * a malformed one is a `bad-input` error naming `source` (the model file).
 */
export function generalCrfOf(model: CrfModel, source = "the model"): GeneralCrf | null {
  const stored = model.generalCrf;
  if (stored === null) return null;
  const bad = (what: string): never => {
    throw new LagrangeError(
      "bad-input",
      `${source}: the general-CRF settings are malformed: ${what} (retrain with lagrange train --model general)`,
    );
  };
  if (!isObject(stored)) return bad("not an object");
  const s = stored;
  const L = model.numLabels;
  const groups = s.groups;
  if (groups !== "tweets" && groups !== "documents") bad(`groups ${JSON.stringify(groups)}`);
  const weights = s.weights;
  if (
    !Array.isArray(weights) ||
    weights.length !== CONSISTENCY_FEATURES ||
    !weights.every((w) => typeof w === "number" && Math.abs(w) <= MAX_WEIGHT_MAGNITUDE)
  ) {
    bad(
      `weights: expected ${CONSISTENCY_FEATURES} finite numbers of magnitude at most ${MAX_WEIGHT_MAGNITUDE}`,
    );
  }
  const outsideLabel = s.outsideLabel;
  if (!isIndex(outsideLabel, L)) bad(`outsideLabel ${JSON.stringify(outsideLabel)} (${L} labels)`);
  const subsequences = s.subsequences;
  if (
    !Array.isArray(subsequences) ||
    subsequences.length < 2 ||
    subsequences.length > MAX_STORED_PHRASE_LENGTH + 1
  ) {
    return bad(`subsequences: expected a list of 2…${MAX_STORED_PHRASE_LENGTH + 1} lists`);
  }
  subsequences.forEach((q, length) => {
    if (
      !Array.isArray(q) ||
      (length > 0 && q.length % length !== 0) ||
      (length === 0 && q.length > 0)
    ) {
      bad(`subsequences[${length}]: expected a flat list of label windows of length ${length}`);
    }
    const at = (q as JsonValue[]).findIndex((id) => !isIndex(id, L));
    if (at >= 0) bad(`subsequences[${length}][${at}] is not a label id below ${L}`);
  });
  const factors = s.factors;
  if (factors !== undefined) {
    if (!isObject(factors)) bad("factors: not an object");
    const f = factors as { readonly [key: string]: JsonValue };
    checkInteger(f.maxLength, "factors.maxLength", 1, MAX_STORED_PHRASE_LENGTH, bad);
    checkInteger(f.maxOccurrences, "factors.maxOccurrences", 2, MAX_STORED_OCCURRENCES, bad);
    if (f.caseSensitive !== undefined && typeof f.caseSensitive !== "boolean") {
      bad("factors.caseSensitive: not a boolean");
    }
  }
  const grouping = s.grouping;
  if (grouping !== undefined) {
    if (!isObject(grouping)) bad("grouping: not an object");
    const g = grouping as { readonly [key: string]: JsonValue };
    checkInteger(g.minOverlap, "grouping.minOverlap", 1, Number.MAX_SAFE_INTEGER, bad);
    checkInteger(g.maxGroupSize, "grouping.maxGroupSize", 1, Number.MAX_SAFE_INTEGER, bad);
    if (g.words !== undefined && g.words !== "all" && g.words !== "content") {
      bad(`grouping.words ${JSON.stringify(g.words)}`);
    }
  }
  const selection = s.selection;
  if (selection !== undefined) {
    const numbers = ["heldOutGroups", "heldOutSentences", "chainScore", "generalScore", "epochs"];
    if (
      !isObject(selection) ||
      !numbers.every((k) => typeof selection[k] === "number" && Number.isFinite(selection[k])) ||
      (selection.measure !== "f1" && selection.measure !== "accuracy") ||
      !(typeof selection.scale === "number" && selection.scale >= 0 && selection.scale <= 1e6) ||
      !(
        Array.isArray(selection.perEpoch) &&
        selection.perEpoch.every((x) => typeof x === "number" && Number.isFinite(x))
      )
    ) {
      bad("selection: expected the held-out choice training records");
    }
  }
  const consistency: ConsistencyModel = {
    L,
    outsideLabel: outsideLabel as number,
    weights: Float64Array.from(weights as number[]),
    subsequences: (subsequences as number[][]).map((q) => Int32Array.from(q)),
    factorOptions: (factors ?? {}) as ConsistencyFactorOptions,
  };
  const settings: GeneralCrfSettings = {
    groups: groups as GroupingKind,
    ...(grouping === undefined ? {} : { grouping: grouping as TweetGroupOptions }),
    ...(factors === undefined ? {} : { factors: factors as ConsistencyFactorOptions }),
    ...(selection === undefined ? {} : { selection: selection as unknown as ConsistencySelection }),
  };
  return { model, consistency, settings };
}

function isObject(x: JsonValue | undefined): x is { readonly [key: string]: JsonValue } {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** An integer label id in 0…L−1. */
function isIndex(x: JsonValue | undefined, L: number): boolean {
  return typeof x === "number" && Number.isInteger(x) && x >= 0 && x < L;
}

/** Absent, or an integer in min…max. */
function checkInteger(
  x: JsonValue | undefined,
  what: string,
  min: number,
  max: number,
  bad: (what: string) => never,
): void {
  if (x === undefined) return;
  if (!(typeof x === "number" && Number.isInteger(x) && x >= min && x <= max)) {
    bad(`${what} ${JSON.stringify(x)}: expected an integer in ${min}…${max}`);
  }
}

/** The model with a general CRF's consistency part recorded in its settings (one model file). */
export function withGeneralCrf(
  model: CrfModel,
  consistency: ConsistencyModel,
  settings: GeneralCrfSettings,
): CrfModel {
  const record: { [key: string]: JsonValue } = {
    groups: settings.groups,
    outsideLabel: consistency.outsideLabel,
    weights: Array.from(consistency.weights),
    featureNames: consistencyFeatureNames(),
    subsequences: consistency.subsequences.map((q) => Array.from(q)),
  };
  if (settings.grouping !== undefined) record.grouping = { ...settings.grouping };
  if (settings.factors !== undefined) {
    const { stopwords: _custom, ...plain } = settings.factors;
    record.factors = { ...plain };
  }
  if (settings.selection !== undefined) {
    record.selection = { ...settings.selection, perEpoch: [...settings.selection.perEpoch] };
  }
  return model.withSettings({ [SETTINGS_KEY]: record });
}
