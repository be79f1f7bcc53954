/**
 * The word clusters the task presets use, built from the dataset registry's raw text by the
 * library's own builders (`pnpm --filter @lagrange/resources reproduce` rebuilds and compares them).
 * Node only.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Brown clustering (Liang 2005, as `brownClusters` of @lagrange/clusters does it). */
export interface BrownClustersRecipe {
  readonly kind: "brown-clusters";
  readonly language: string;
  /** `openRawText` names of @lagrange/datasets, read in this order. */
  readonly corpora: readonly string[];
  readonly clusters: number;
  /** Words seen fewer times are left out. */
  readonly minCount: number;
}

/** k-means at each of `sizes` over PPMI-SVD word vectors (`ppmiSvdVectors`, `kmeans`). */
export interface EmbeddingClustersRecipe {
  readonly kind: "embedding-clusters";
  readonly language: string;
  readonly corpora: readonly string[];
  readonly minCount: number;
  readonly sizes: readonly number[];
  /** The seed of the SVD's test matrix and of k-means++. */
  readonly seed: number;
  readonly ppmiSvd: {
    readonly contexts: number;
    readonly window: number;
    readonly alpha: number;
    readonly dims: number;
    readonly oversampling: number;
    readonly powerIterations: number;
  };
}

export type ResourceRecipe = BrownClustersRecipe | EmbeddingClustersRecipe;

/** One shipped file: its name carries the recipe's settings, as the user cache's names do. */
export interface ShippedResource {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Word types in the file. */
  readonly words: number;
  readonly recipe: ResourceRecipe;
}

// Beside this module: src/data in a checkout, dist/data once built (the build copies it), and
// beside the chunks of the CLI's bundle (its build copies it there too).
const DATA = new URL("./data/", import.meta.url);

let manifest: readonly ShippedResource[] | undefined;

/** Every shipped file, as the manifest lists it. */
export function shippedResources(): readonly ShippedResource[] {
  manifest ??= (
    JSON.parse(readFileSync(new URL("manifest.json", DATA), "utf8")) as {
      files: ShippedResource[];
    }
  ).files;
  return manifest;
}

/** The path of the shipped file `name` (`clusters-en-c500-min10.paths`), or undefined. */
export function shippedResource(name: string): string | undefined {
  if (!shippedResources().some((r) => r.name === name)) return undefined;
  const file = fileURLToPath(new URL(name, DATA));
  return existsSync(file) ? file : undefined;
}
