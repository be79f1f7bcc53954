/**
 * Finding the resources a model's features need, on disk: cluster path files (given, in a
 * resources folder, shipped, in the cache, or built from the registry's raw text and cached), gazetteers
 * from the registry or a folder, lexicon files. Node only.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LexiconResource } from "@lagrange/chain-crf";
import {
  brownClusters,
  formatClusterPaths,
  parseClusterPaths,
  type WordClusters,
} from "@lagrange/clusters";
import { readInput } from "@lagrange/core/node";
import { checkLineEndings, LEXICONS } from "@lagrange/datasets";
import { cacheDir, findMirrorDir, openLexicon, readLexiconFile } from "@lagrange/datasets/node";
import { definedFields } from "../training/defined-fields.js";
import {
  type CachedResource,
  cachedResource,
  findResource,
  type Provenance,
} from "./cached-resource.js";
import {
  embeddingClusters,
  embeddingResource,
  type LoadedEmbeddingClusters,
} from "./embedding-clusters.js";
import {
  CLUSTER_RECIPES,
  type ClusterLanguage,
  type ResourceOptions,
  type TaskPreset,
  type TaskResources,
} from "./task-presets.js";

/** Word clusters read from a paths file. */
export interface LoadedClusters extends Provenance {
  readonly words: readonly string[];
  readonly paths: readonly string[];
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
 * (`clusters-<language>-c<size>.paths`) in the resources folder, else the file @lagrange/resources
 * ships, else the cache, else built now from the recipe's corpora (Brown clustering; minutes) and
 * written to the cache.
 */
export async function languageClusters(
  language: ClusterLanguage,
  options: ResourceOptions = {},
  size?: number,
): Promise<LoadedClusters> {
  const found = await cachedResource(language, clusterResource(language, options, size), options);
  // Only the words and paths: a built clustering carries counts the model does not keep.
  const { words, paths, file, built, seconds } = found;
  return { words, paths, file, built, seconds };
}

/** Where a language's Brown clusters are looked for, and how they are built. */
export function clusterResource(
  language: ClusterLanguage,
  options: ResourceOptions,
  size?: number,
): CachedResource<Pick<LoadedClusters, "words" | "paths">, WordClusters> {
  const recipe = CLUSTER_RECIPES[language];
  const clusters = size ?? recipe.clusters;
  const { signal, onProgress } = options;
  return {
    given:
      clusters === recipe.clusters
        ? `clusters-${language}.paths`
        : `clusters-${language}-c${clusters}.paths`,
    cached: clusterCacheFile(language, clusters),
    read: readClusterFile,
    build: (text) =>
      brownClusters(text, {
        clusters,
        minCount: recipe.minCount,
        ...definedFields({ signal }),
        ...(onProgress === undefined
          ? {}
          : {
              onProgress: (done: number, total: number) =>
                onProgress(`clusters-${language}-c${clusters}`, done, total),
            }),
      }),
    format: formatClusterPaths,
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

/** One resource a task preset reads: a file where it is one, else the npm packages it comes from. */
export interface TaskResourceSource {
  readonly kind: "clusters" | "embeddings" | "gazetteer";
  readonly name: string;
  /** Undefined where it is no file (a gazetteer built from npm packages) or none is found yet. */
  readonly file?: string;
  readonly packages?: readonly string[];
}

/**
 * Where each resource `loadTaskResources(preset, options)` reads is found, in the same order of
 * places, without reading any: a resource not built yet has no file.
 */
export function taskResourceSources(
  preset: TaskPreset,
  options: Pick<ResourceOptions, "resourcesDir"> = {},
): TaskResourceSource[] {
  const sources: TaskResourceSource[] = [];
  const language = preset.clusters;
  if (language !== null) {
    for (const size of [CLUSTER_RECIPES[language].clusters, ...preset.wideClusters]) {
      const resource = clusterResource(language, options, size);
      const file = findResource(resource, options);
      sources.push({ kind: "clusters", name: resource.given, ...definedFields({ file }) });
    }
    if (preset.embeddings.length > 0) {
      const resource = embeddingResource(language, preset.embeddings, options);
      const file = findResource(resource, options);
      sources.push({ kind: "embeddings", name: resource.given, ...definedFields({ file }) });
    }
  }
  for (const name of preset.gazetteers) {
    const given =
      options.resourcesDir === undefined ? undefined : join(options.resourcesDir, `${name}.txt`);
    const info = LEXICONS.find((l) => l.name === name);
    const mirror = info?.source === "mirror" ? findMirrorDir() : undefined;
    const file =
      given !== undefined && existsSync(given)
        ? given
        : info?.source === "mirror" && mirror !== undefined
          ? join(mirror, info.file)
          : undefined;
    sources.push({
      kind: "gazetteer",
      name,
      ...definedFields({ file }),
      ...(file === undefined && info?.source === "package" ? { packages: info.packages } : {}),
    });
  }
  return sources;
}
