/**
 * The tuning fold of a task preset's held-out stopping rule: whole documents cut from the training
 * data, and the features of the rest mined again without them, so that the fold reads as unseen
 * data (its names are in no lexicon mined from the labels the model trains on).
 */
import type { Corpus, LabelScheme } from "@lagrange/datasets";
import { documentUnits, MINED_PREFIX } from "./mined-lexicons.js";
import { type HeldOutRule, resolveTaskPreset } from "./task-presets.js";
import type { TrainingFeatures } from "./training-features.js";

export interface TuningCut {
  /** What the model trains on. */
  readonly rest: Corpus;
  /** What it is scored on while it trains. */
  readonly tuning: Corpus;
}

/**
 * Fold 0 of `rule.folds` over the corpus's documents (blocks of 20 sentences without document
 * marks), dealt round-robin so that it spans the corpus; the same corpus always gives the same cut.
 * Null when the corpus has fewer than `rule.minUnits` documents: a fold of one or two would be
 * too noisy a curve to stop on.
 */
export function tuningCut(corpus: Corpus, rule: HeldOutRule): TuningCut | null {
  const units = documentUnits(corpus.sentences);
  const count = units.length === 0 ? 0 : units[units.length - 1]! + 1;
  if (count < Math.max(rule.minUnits, 2)) return null;
  const rest: Corpus["sentences"][number][] = [];
  const tuning: Corpus["sentences"][number][] = [];
  corpus.sentences.forEach((sentence, i) => {
    (units[i]! % rule.folds === 0 ? tuning : rest).push(sentence);
  });
  return {
    rest: { ...corpus, sentences: rest },
    tuning: {
      ...corpus,
      label: `${corpus.label} (tuning fold: ${tuning.length} sentences)`,
      sentences: tuning,
    },
  };
}

/**
 * `features` (resolved on a whole corpus) for training on `part` of it alone: a task preset's
 * lexicons mined from the training labels are mined again from `part`, jackknifed over its own
 * folds; the resources (clusters, gazetteers, lexicon files, dense columns) stay as they are.
 * Features without mined lexicons are returned as they are.
 */
export function featuresOnPart(
  features: TrainingFeatures,
  part: Corpus,
  scheme: LabelScheme,
): TrainingFeatures {
  const { task, features: spec } = features;
  if (task === undefined || spec === undefined || !task.mined) return features;
  const lexicons = spec.lexicons ?? [];
  if (!lexicons.some((l) => l.name.startsWith(MINED_PREFIX))) return features;
  const resolved = resolveTaskPreset(
    { ...task, clusters: null },
    { clusters: [], gazetteers: lexicons.filter((l) => !l.name.startsWith(MINED_PREFIX)) },
    { sentences: part.sentences, columns: spec.columns ?? [], scheme },
  );
  const withMined = (f: typeof resolved.features) => ({ ...spec, lexicons: f.lexicons ?? [] });
  const { jackknife: _whole, ...kept } = features;
  return {
    ...kept,
    features: withMined(resolved.features),
    ...(resolved.jackknife === undefined
      ? {}
      : {
          jackknife: {
            fold: resolved.jackknife.fold,
            specs: resolved.jackknife.specs.map(withMined),
          },
        }),
  };
}
