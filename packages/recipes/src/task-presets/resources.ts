/**
 * Finding the resources a model's features need, on disk: cluster path files (given, in a
 * resources folder, in the cache, or built from the registry's raw text and cached), gazetteers
 * from the registry or a folder, lexicon files. Node only.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LexiconResource } from "@lagrange/chain-crf";
import { brownClusters, formatClusterPaths, parseClusterPaths } from "@lagrange/clusters";
import { throwIfAborted } from "@lagrange/core";
import { readInput, writeFileAtomic } from "@lagrange/core/node";
import { checkLineEndings } from "@lagrange/datasets";
import { cacheDir, openLexicon, openRawText, readLexiconFile } from "@lagrange/datasets/node";
import { definedFields } from "../training/defined-fields.js";
import { embeddingClusters, type LoadedEmbeddingClusters } from "./embedding-clusters.js";
import {
  CLUSTER_RECIPES,
  type ClusterLanguage,
  type TaskPreset,
  type TaskResources,
} from "./task-presets.js";

export interface ResourceOptions {
  /** A folder that holds `clusters-<language>.paths` and `<lexicon>.txt` files to use instead. */
  readonly resourcesDir?: string;
  readonly signal?: AbortSignal;
  /** Stages that take time (building clusters): what, done, total. */
  readonly onProgress?: (stage: string, done: number, total: number) => void;
}

/** Word clusters read from a paths file. */
export interface LoadedClusters {
  readonly words: readonly string[];
  readonly paths: readonly string[];
  /** Where they came from (a file), and whether this run built it. */
  readonly file: string;
  readonly built: boolean;
  readonly seconds: number;
}

/**
 * Reads a Liang `paths` file (bits TAB word TAB count) through core's one input opener (a device
 * refused, the clusters cap applied, CR-only lines refused); errors name file:line.
 */
export async function readClusterFile(file: string, signal?: AbortSignal): Promise<LoadedClusters> {
  const bytes = await readInput(file, {
    kind: "clusters",
    ...definedFields({ signal }),
  });
  const text = new TextDecoder().decode(bytes);
  checkLineEndings(text, file);
  const clusters = parseClusterPaths(text, file);
  return { words: clusters.words, paths: clusters.paths, file, built: false, seconds: 0 };
}

/** The cache file of a language's clusters: the recipe's settings are in its name. */
export function clusterCacheFile(language: ClusterLanguage, clusters?: number): string {
  const r = CLUSTER_RECIPES[language];
  return join(
    cacheDir(),
    "resources",
    `clusters-${language}-c${clusters ?? r.clusters}-min${r.minCount}.paths`,
  );
}

/**
 * A language's clusters (the recipe's number of them, or `size`): `clusters-<language>.paths`
 * (`clusters-<language>-c<size>.paths`) in the resources folder, else the cache, else built now
 * from the recipe's corpora (Brown clustering; minutes) and written to the cache.
 */
export async function languageClusters(
  language: ClusterLanguage,
  options: ResourceOptions = {},
  size?: number,
): Promise<LoadedClusters> {
  const recipe = CLUSTER_RECIPES[language];
  const clusters = size ?? recipe.clusters;
  if (options.resourcesDir !== undefined) {
    const name =
      clusters === recipe.clusters
        ? `clusters-${language}.paths`
        : `clusters-${language}-c${clusters}.paths`;
    const given = join(options.resourcesDir, name);
    if (existsSync(given)) return readClusterFile(given, options.signal);
  }
  const cached = clusterCacheFile(language, clusters);
  if (existsSync(cached)) return readClusterFile(cached, options.signal);
  const started = performance.now();
  const signal = options.signal;
  async function* text(): AsyncIterable<string[]> {
    for (const corpus of recipe.corpora) {
      yield* openRawText(corpus, definedFields({ signal }));
    }
  }
  const built = await brownClusters(text(), {
    clusters,
    minCount: recipe.minCount,
    ...definedFields({ signal }),
    ...(options.onProgress === undefined
      ? {}
      : {
          onProgress: (done: number, total: number) =>
            options.onProgress!(`clusters-${language}-c${clusters}`, done, total),
        }),
  });
  throwIfAborted(signal);
  const folder = join(cacheDir(), "resources");
  mkdirSync(folder, { recursive: true });
  await writeFileAtomic(cached, formatClusterPaths(built));
  return {
    words: built.words,
    paths: built.paths,
    file: cached,
    built: true,
    seconds: (performance.now() - started) / 1000,
  };
}

/** A registry lexicon, or `<name>.txt` from the resources folder where there is one. */
export async function gazetteer(
  name: string,
  options: ResourceOptions = {},
): Promise<LexiconResource> {
  const signal = definedFields({ signal: options.signal });
  if (options.resourcesDir !== undefined) {
    const given = join(options.resourcesDir, `${name}.txt`);
    if (existsSync(given)) return { name, entries: await readLexiconFile(given, signal) };
  }
  return { name, entries: await openLexicon(name, signal) };
}

/** A user's lexicon file (`--lexicon NAME=FILE`). */
export async function lexiconFile(
  name: string,
  file: string,
  signal?: AbortSignal,
): Promise<LexiconResource> {
  return { name, entries: await readLexiconFile(file, definedFields({ signal })) };
}

/** Everything a task preset needs, found or built. */
export async function loadTaskResources(
  preset: TaskPreset,
  options: ResourceOptions = {},
): Promise<
  TaskResources & {
    readonly clusters: readonly (LoadedClusters & { size: number })[];
    readonly embeddingFile?: LoadedEmbeddingClusters;
  }
> {
  const clusters: (LoadedClusters & { size: number })[] = [];
  const language = preset.clusters;
  let embeddingFile: LoadedEmbeddingClusters | undefined;
  if (language !== null) {
    for (const size of [CLUSTER_RECIPES[language].clusters, ...preset.wideClusters]) {
      clusters.push({ ...(await languageClusters(language, options, size)), size });
    }
    if (preset.embeddings.length > 0) {
      embeddingFile = await embeddingClusters(language, preset.embeddings, options);
    }
  }
  const gazetteers: LexiconResource[] = [];
  for (const name of preset.gazetteers) gazetteers.push(await gazetteer(name, options));
  if (embeddingFile === undefined) return { clusters, gazetteers };
  const e = embeddingFile;
  const embeddings = e.sizes.map((size, s) => ({ size, words: e.words, clusters: e.clusters[s]! }));
  return { clusters, embeddings, embeddingFile: e, gazetteers };
}
