/**
 * k-means clusters of PPMI-SVD word vectors at several granularities (IXA pipes used Clark and
 * word2vec clusters beside Brown's), built from a language's raw text and cached as one readable
 * file: a header `word TAB k100 TAB k300 …`, then each word with its cluster at each k. Node only.
 */
import { join } from "node:path";
import { kmeans, PPMI_SVD_DEFAULTS, ppmiSvdVectors } from "@lagrange/clusters";
import { LagrangeError } from "@lagrange/core";
import { readInput } from "@lagrange/core/node";
import { checkLineEndings } from "@lagrange/datasets";
import { cacheDir } from "@lagrange/datasets/node";
import { definedFields } from "../training/defined-fields.js";
import { type CachedResource, cachedResource, type Provenance } from "./cached-resource.js";
import { CLUSTER_RECIPES, type ClusterLanguage, type ResourceOptions } from "./task-presets.js";

/** Each word's k-means cluster at each k, parallel arrays. */
export interface EmbeddingClusters {
  readonly sizes: readonly number[];
  readonly words: readonly string[];
  /** Per size, each word's cluster id (0 … k − 1). */
  readonly clusters: readonly Int32Array[];
}

export interface LoadedEmbeddingClusters extends EmbeddingClusters, Provenance {}

/** The seed of the Gaussian test matrix and of k-means++: a cached file is reproducible. */
export const EMBEDDING_SEED = 1;

export function formatEmbeddingClusters(e: EmbeddingClusters): string {
  const lines = [["word", ...e.sizes.map((k) => `k${k}`)].join("\t")];
  e.words.forEach((word, i) => {
    lines.push([word, ...e.clusters.map((c) => String(c[i]))].join("\t"));
  });
  return `${lines.join("\n")}\n`;
}

/** Parses {@link formatEmbeddingClusters}' text; errors name file:line and what was expected. */
export function parseEmbeddingClusters(text: string, file: string): EmbeddingClusters {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const header = (lines[0] ?? "").split("\t");
  const sizes = header.slice(1).map((h) => (/^k[1-9][0-9]*$/.test(h) ? Number(h.slice(1)) : 0));
  if (header[0] !== "word" || sizes.length === 0 || sizes.some((k) => k === 0)) {
    throw new LagrangeError(
      "invalid-problem",
      `${file}:1: expected a header "word<TAB>k100<TAB>k300…", got ${JSON.stringify(lines[0] ?? "")}`,
    );
  }
  const words: string[] = [];
  const clusters = sizes.map(() => new Int32Array(lines.length - 1));
  const seen = new Set<string>();
  for (let n = 1; n < lines.length; n++) {
    const fields = lines[n]!.split("\t");
    const where = `${file}:${n + 1}`;
    if (fields.length !== sizes.length + 1 || fields[0] === "") {
      throw new LagrangeError(
        "invalid-problem",
        `${where}: expected a word and ${sizes.length} cluster id(s), tab-separated; got ${JSON.stringify(lines[n])}`,
      );
    }
    const word = fields[0]!;
    if (seen.has(word)) {
      throw new LagrangeError("invalid-problem", `${where}: word ${JSON.stringify(word)} again`);
    }
    seen.add(word);
    words.push(word);
    sizes.forEach((k, s) => {
      const id = Number(fields[s + 1]);
      if (!/^[0-9]+$/.test(fields[s + 1]!) || id >= k) {
        throw new LagrangeError(
          "invalid-problem",
          `${where}: column k${k}: expected a cluster id in 0…${k - 1}, got ${JSON.stringify(fields[s + 1])}`,
        );
      }
      clusters[s]![n - 1] = id;
    });
  }
  return { sizes, words, clusters };
}

/** Reads an embedding clusters file and keeps the columns of `sizes` (each must be there). */
export async function readEmbeddingClusters(
  file: string,
  sizes: readonly number[],
  signal?: AbortSignal,
): Promise<EmbeddingClusters> {
  const bytes = await readInput(file, { kind: "clusters", ...definedFields({ signal }) });
  const text = new TextDecoder().decode(bytes);
  checkLineEndings(text, file);
  const all = parseEmbeddingClusters(text, file);
  const clusters = sizes.map((k) => {
    const at = all.sizes.indexOf(k);
    if (at < 0) {
      throw new LagrangeError(
        "invalid-problem",
        `${file}:1: expected a column k${k}; the file has ${all.sizes.map((s) => `k${s}`).join(", ")}`,
      );
    }
    return all.clusters[at]!;
  });
  return { sizes, words: all.words, clusters };
}

/** The cache file of a language's embedding clusters: the recipe's settings are in its name. */
export function embeddingCacheFile(language: ClusterLanguage, sizes: readonly number[]): string {
  const r = CLUSTER_RECIPES[language];
  const d = PPMI_SVD_DEFAULTS;
  return join(
    cacheDir(),
    "resources",
    `embeddings-${language}-min${r.minCount}-w${d.window}-d${d.dims}-k${sizes.join("-")}.tsv`,
  );
}

/**
 * A language's embedding clusters at each k of `sizes`: `embeddings-<language>.tsv` in the
 * resources folder, else the file @lagrange/resources ships, else the cache, else built now from
 * the cluster recipe's corpora (PPMI-SVD vectors, then k-means at each k; minutes) and written to
 * the cache.
 */
export async function embeddingClusters(
  language: ClusterLanguage,
  sizes: readonly number[],
  options: ResourceOptions = {},
): Promise<LoadedEmbeddingClusters> {
  return cachedResource(language, embeddingResource(language, sizes, options), options);
}

/** Where a language's embedding clusters are looked for, and how they are built. */
export function embeddingResource(
  language: ClusterLanguage,
  sizes: readonly number[],
  options: ResourceOptions,
): CachedResource<EmbeddingClusters> {
  const { signal, onProgress } = options;
  const progress = (stage: string) =>
    onProgress === undefined
      ? {}
      : { onProgress: (done: number, total: number) => onProgress(stage, done, total) };
  return {
    given: `embeddings-${language}.tsv`,
    cached: embeddingCacheFile(language, sizes),
    read: (file, fileSignal) => readEmbeddingClusters(file, sizes, fileSignal),
    build: async (text) => {
      const vectors = await ppmiSvdVectors(text, {
        minCount: CLUSTER_RECIPES[language].minCount,
        seed: EMBEDDING_SEED,
        ...definedFields({ signal }),
        ...progress(`embeddings-${language}`),
      });
      const clusters: Int32Array[] = [];
      for (const k of sizes) {
        if (vectors.words.length === 0) {
          clusters.push(new Int32Array(0));
          continue;
        }
        const run = await kmeans(vectors, Math.min(k, vectors.words.length), {
          seed: EMBEDDING_SEED,
          ...definedFields({ signal }),
          ...progress(`embeddings-${language}-k${k}`),
        });
        clusters.push(run.assignment);
      }
      return { sizes, words: vectors.words, clusters };
    },
    format: formatEmbeddingClusters,
  };
}
