/**
 * The induced resources the task presets use, each with its recipe and its builder: what
 * @lagrange/resources ships and what its `rebuild` script builds and compares. Node only.
 */
import { basename } from "node:path";
import { PPMI_SVD_DEFAULTS } from "@lagrange/clusters";
import type { ResourceRecipe } from "@lagrange/resources";
import { buildResource } from "./cached-resource.js";
import { EMBEDDING_SEED, embeddingResource } from "./embedding-clusters.js";
import { clusterResource } from "./resources.js";
import {
  CLUSTER_RECIPES,
  type ClusterLanguage,
  type ResourceOptions,
  TASK_PRESETS,
  type TaskPreset,
} from "./task-presets.js";

export interface PresetResource {
  /** The shipped (and cached) file's name: the recipe's settings are in it. */
  readonly name: string;
  readonly recipe: ResourceRecipe;
  /** Builds it from the registry's raw text: the file's text and its number of words. */
  readonly build: (options?: ResourceOptions) => Promise<{ text: string; words: number }>;
}

/**
 * Every file the presets load with their parts as they ship (`on`): each language's Brown
 * clusters, the further clusterings where `on.wideClusters`, the embedding clusters where
 * `on.embeddings`; in the presets' order, each once.
 */
export function presetResources(presets: readonly TaskPreset[] = TASK_PRESETS): PresetResource[] {
  const found = new Map<string, PresetResource>();
  const add = (resource: PresetResource) => {
    if (!found.has(resource.name)) found.set(resource.name, resource);
  };
  for (const preset of presets) {
    const language = preset.clusters;
    if (language === null) continue;
    const recipe = CLUSTER_RECIPES[language];
    for (const size of [recipe.clusters, ...(preset.on.wideClusters ? preset.wideClusters : [])]) {
      add(brownFile(language, size));
    }
    if (preset.on.embeddings && preset.embeddings.length > 0) {
      add(embeddingFile(language, preset.embeddings));
    }
  }
  return [...found.values()];
}

function brownFile(language: ClusterLanguage, size: number): PresetResource {
  const { corpora, minCount } = CLUSTER_RECIPES[language];
  return {
    name: basename(clusterResource(language, {}, size).cached),
    recipe: { kind: "brown-clusters", language, corpora, clusters: size, minCount },
    build: async (options = {}) => {
      const resource = clusterResource(language, options, size);
      const built = await buildResource(language, resource, options);
      return { text: resource.format(built), words: built.words.length };
    },
  };
}

function embeddingFile(language: ClusterLanguage, sizes: readonly number[]): PresetResource {
  const { corpora, minCount } = CLUSTER_RECIPES[language];
  const { contexts, window, alpha, dims, oversampling, powerIterations } = PPMI_SVD_DEFAULTS;
  return {
    name: basename(embeddingResource(language, sizes, {}).cached),
    recipe: {
      kind: "embedding-clusters",
      language,
      corpora,
      minCount,
      sizes,
      seed: EMBEDDING_SEED,
      ppmiSvd: { contexts, window, alpha, dims, oversampling, powerIterations },
    },
    build: async (options = {}) => {
      const resource = embeddingResource(language, sizes, options);
      const built = await buildResource(language, resource, options);
      return { text: resource.format(built), words: built.words.length };
    },
  };
}
