/**
 * A resource induced from a language's raw text (Brown clusters, embedding clusters): the file
 * in the resources folder, else the one @lagrange/resources ships, else the cache, else built now
 * from the cluster recipe's corpora and written to the cache atomically. Node only.
 */
import { existsSync, mkdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { throwIfAborted } from "@lagrange/core";
import { writeFileAtomic } from "@lagrange/core/node";
import { openRawText } from "@lagrange/datasets/node";
import { shippedResource } from "@lagrange/resources";
import { definedFields } from "../training/defined-fields.js";
import { CLUSTER_RECIPES, type ClusterLanguage, type ResourceOptions } from "./task-presets.js";

/** Where a resource came from (a file), whether this run built it, and in how long. */
export interface Provenance {
  readonly file: string;
  readonly built: boolean;
  readonly seconds: number;
}

/** `T` as read from a file; `B`, what building gives (it may carry more, which `format` writes). */
export interface CachedResource<T, B extends T = T> {
  /**
   * Its name in a resources folder (`clusters-en.paths`), and its cache file, whose name carries
   * the recipe's settings and is also the shipped file's name.
   */
  readonly given: string;
  readonly cached: string;
  readonly read: (file: string, signal?: AbortSignal) => Promise<T>;
  /** Builds it from the recipe's text; `format` writes it as `read` reads it. */
  readonly build: (text: AsyncIterable<string[]>) => Promise<B>;
  readonly format: (built: B) => string;
}

/** The file `resource` is read from (the resources folder's, the shipped one, the cache's), if any. */
export function findResource<T, B extends T>(
  resource: CachedResource<T, B>,
  options: Pick<ResourceOptions, "resourcesDir">,
): string | undefined {
  return [
    ...(options.resourcesDir === undefined ? [] : [join(options.resourcesDir, resource.given)]),
    shippedResource(basename(resource.cached)),
    resource.cached,
  ].find((file) => file !== undefined && existsSync(file));
}

export async function cachedResource<T, B extends T = T>(
  language: ClusterLanguage,
  resource: CachedResource<T, B>,
  options: ResourceOptions,
): Promise<T & Provenance> {
  const found = findResource(resource, options);
  if (found !== undefined) {
    return {
      ...(await resource.read(found, options.signal)),
      file: found,
      built: false,
      seconds: 0,
    };
  }
  const started = performance.now();
  const built = await buildResource(language, resource, options);
  mkdirSync(dirname(resource.cached), { recursive: true });
  await writeFileAtomic(resource.cached, resource.format(built));
  return {
    ...(built as T),
    file: resource.cached,
    built: true,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Builds `resource` from the cluster recipe's corpora, looking nowhere for a file. */
export async function buildResource<T, B extends T>(
  language: ClusterLanguage,
  resource: CachedResource<T, B>,
  options: ResourceOptions,
): Promise<B> {
  const { signal } = options;
  const corpora = CLUSTER_RECIPES[language].corpora;
  async function* text(): AsyncIterable<string[]> {
    for (const corpus of corpora) yield* openRawText(corpus, definedFields({ signal }));
  }
  const built = await resource.build(text());
  throwIfAborted(signal);
  return built;
}
