import { type CrfModel, getPreset, type TrainingProgress } from "@lagrange/chain-crf";
import type { Corpus, LabelScheme } from "@lagrange/datasets";
import { cachedModel, cacheModel, modelCacheKey } from "./model-cache.js";
import { sentenceAttributes } from "./model-input.js";
import { definedFields } from "./training/defined-fields.js";
import { trainOnCorpus } from "./training.js";

/** The base CRF as trained (or found in the cache). */
export interface BaseModel {
  readonly model: CrfModel;
  readonly cached: boolean;
  readonly seconds: number;
  readonly iterations: number | null;
  readonly features: number;
}

export interface CachedTrainingOptions {
  /** Cache file prefix (`<name>-<key>.model`), e.g. `citation-crf`. */
  readonly name: string;
  /** Feature preset name (citation, ner, chunking, pos). */
  readonly preset: string;
  /** Default: the corpus's own scheme. */
  readonly scheme?: LabelScheme;
  /** L-BFGS iterations. */
  readonly iterations: number;
  /** L2 regularisation (default 1, CRFsuite's). */
  readonly c2?: number;
  /**
   * Keep attributes seen at least this often (default 1): a smaller model file (a page ships it);
   * part of the cache key when set.
   */
  readonly minAttributeFrequency?: number;
  /** Labels in a fixed order (label ids shared with another model); part of the cache key. */
  readonly labels?: readonly string[];
  /** Threads for the objective (default 2); they do not change the model, so not its key. */
  readonly threads?: number;
  /** Where trained models are cached; absent: always train. */
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
  // biome-ignore lint/suspicious/noConfusingVoidType: a progress callback returns nothing
  readonly onTrainingProgress?: (progress: TrainingProgress) => void | boolean;
  readonly signal?: AbortSignal;
}

/**
 * A chain CRF trained with L-BFGS on a corpus (through {@link trainOnCorpus}), or the one the cache
 * holds for the same attributes, labels and settings. The key is the one `prepareCitationExperiment`
 * computes (settings `preset`, `c2`, `iterations`, `scheme`, in that order), so that a suite training
 * the citation CRF on the same data finds the model another suite cached.
 */
export async function trainOrLoadModel(
  corpus: Corpus,
  options: CachedTrainingOptions,
): Promise<BaseModel> {
  const status = options.onStatus ?? (() => {});
  const preset = getPreset(options.preset);
  const scheme = options.scheme ?? corpus.scheme;
  const c2 = options.c2 ?? 1;
  const attributes = corpus.sentences.map((s) => sentenceAttributes(preset, s));
  let key: string | undefined;
  if (options.cacheDir !== undefined) {
    key = modelCacheKey(
      attributes.map((a, i) => ({ attributes: a, labels: corpus.sentences[i]!.labels ?? [] })),
      {
        preset: options.preset,
        c2,
        iterations: options.iterations,
        scheme,
        ...definedFields({
          labels: options.labels === undefined ? undefined : [...options.labels],
          minAttributeFrequency: options.minAttributeFrequency,
        }),
      },
    );
    const model = await cachedModel(options.cacheDir, options.name, key);
    if (model !== undefined) {
      status(`${options.name}: from the cache (${key})`);
      return {
        model,
        cached: true,
        seconds: 0,
        iterations: null,
        features: model.layout.numWeights,
      };
    }
  }
  status(
    `${options.name}: training on ${corpus.sentences.length} sequences (${options.iterations} L-BFGS iterations, ${options.threads ?? 2} threads)…`,
  );
  const trained = await trainOnCorpus(corpus, {
    preset: options.preset,
    scheme,
    attributes,
    algorithm: "lbfgs",
    maxIterations: options.iterations,
    c2,
    threads: options.threads ?? 2,
    ...definedFields({
      labels: options.labels,
      minAttributeFrequency: options.minAttributeFrequency,
      onProgress: options.onTrainingProgress,
      signal: options.signal,
    }),
  });
  if (options.cacheDir !== undefined && key !== undefined) {
    const file = await cacheModel(options.cacheDir, options.name, key, trained.model);
    status(`${options.name}: trained in ${trained.seconds.toFixed(1)} s; cached as ${file}`);
  }
  return {
    model: trained.model,
    cached: false,
    seconds: trained.seconds,
    iterations: trained.iterations,
    features: trained.numFeatures,
  };
}
