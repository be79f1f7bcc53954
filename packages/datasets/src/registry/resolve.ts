import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openAtomicFile, openInput } from "@lagrange/core/node";
import {
  type DatasetInfo,
  type DatasetSplitInfo,
  type DownloadSource,
  getDataset,
  getSplit,
} from "./catalog.js";
import {
  DatasetChecksumError,
  DatasetConfigError,
  DatasetDownloadError,
  DatasetUnavailableError,
} from "./errors.js";
import { extractZipMember } from "./zip.js";

/** Environment variable naming the mirror directory (a copy of ../shared/datasets). */
export const DATA_DIR_ENV = "LAGRANGE_DATA_DIR";
/** Environment variable overriding the user cache directory. */
export const CACHE_DIR_ENV = "LAGRANGE_CACHE_DIR";
/** Environment variable that forbids downloads when set to 1 or true. */
export const OFFLINE_ENV = "LAGRANGE_OFFLINE";

export type FetchLike = (url: string, init: { signal?: AbortSignal }) => Promise<Response>;

export interface DownloadProgress {
  readonly dataset: string;
  readonly split: string;
  readonly file: string;
  readonly url: string;
  readonly receivedBytes: number;
  /** From the registry or Content-Length; undefined when neither is known. */
  readonly totalBytes: number | undefined;
}

export interface LocateOptions {
  /** Datasets to look names up in (default the built-in DATASETS); for private corpora and tests. */
  readonly catalog?: readonly DatasetInfo[];
  /** Mirror directory; `null` disables the mirror. Default: env, then ../shared/datasets. */
  readonly mirrorDir?: string | null;
  /** Cache directory. Default: env LAGRANGE_CACHE_DIR, $XDG_CACHE_HOME/lagrange, ~/.cache/lagrange. */
  readonly cacheDir?: string;
  /** Environment to read settings from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where the walk up for the repository root starts (default process.cwd()). */
  readonly cwd?: string;
  /**
   * Sealed test splits missing from the mirror are reported absent rather than looked up in the
   * cache or downloaded, so that nothing tuned here can read them by accident. Set to resolve
   * them like any other split.
   */
  readonly includeSealed?: boolean;
}

export interface ResolveOptions extends LocateOptions {
  /** Never download (also env LAGRANGE_OFFLINE=1). */
  readonly offline?: boolean;
  /** Hash mirror files too (cache hits and downloads are always hashed). */
  readonly verifyMirror?: boolean;
  /** Fetch implementation (default the global fetch). */
  readonly fetch?: FetchLike;
  /**
   * Download from `<base>/<folder>/<file>` (a server laid out like the mirror) instead of the
   * canonical URLs.
   */
  readonly downloadBaseUrl?: string;
  readonly onProgress?: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal;
}

export type SplitSource = "mirror" | "cache" | "download";

export interface AvailableSplit {
  readonly status: "available";
  readonly source: SplitSource;
  readonly path: string;
  readonly dataset: DatasetInfo;
  readonly split: DatasetSplitInfo;
}

export interface AbsentSplit {
  readonly status: "absent";
  readonly reason: "sealed";
  readonly dataset: DatasetInfo;
  readonly split: DatasetSplitInfo;
  readonly message: string;
}

export interface MissingSplit {
  readonly status: "missing";
  readonly dataset: DatasetInfo;
  readonly split: DatasetSplitInfo;
  /** Paths where the file would be found. */
  readonly destinations: readonly string[];
}

export type SplitLocation = AvailableSplit | AbsentSplit | MissingSplit;
export type SplitResolution = AvailableSplit | AbsentSplit;

const moduleDir = dirname(fileURLToPath(import.meta.url));

function envOf(options: LocateOptions): Readonly<Record<string, string | undefined>> {
  return options.env ?? process.env;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `<root>/../shared/datasets` for the first repository root above `start`, if it exists. */
function sharedDatasetsAbove(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml")) || existsSync(join(dir, ".git"))) {
      const candidate = resolve(dir, "..", "shared", "datasets");
      if (isDirectory(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The mirror directory in use: the `mirrorDir` option, else env LAGRANGE_DATA_DIR, else
 * `<repository root>/../shared/datasets` found by walking up from the current directory and
 * from this module. Undefined when there is none. An explicit setting that is not a directory
 * is an error, not silently ignored.
 */
export function findMirrorDir(options: LocateOptions = {}): string | undefined {
  if (options.mirrorDir === null) return undefined;
  if (options.mirrorDir !== undefined) {
    if (!isDirectory(options.mirrorDir)) {
      throw new DatasetConfigError(`mirrorDir ${options.mirrorDir} is not a directory`);
    }
    return resolve(options.mirrorDir);
  }
  const fromEnv = envOf(options)[DATA_DIR_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!isDirectory(fromEnv)) {
      throw new DatasetConfigError(`${DATA_DIR_ENV}=${fromEnv} is not a directory`);
    }
    return resolve(fromEnv);
  }
  return sharedDatasetsAbove(options.cwd ?? process.cwd()) ?? sharedDatasetsAbove(moduleDir);
}

/** The user cache directory (it need not exist yet). */
export function cacheDir(options: LocateOptions = {}): string {
  if (options.cacheDir !== undefined) return resolve(options.cacheDir);
  const env = envOf(options);
  const explicit = env[CACHE_DIR_ENV];
  if (explicit !== undefined && explicit !== "") return resolve(explicit);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg !== "") return join(resolve(xdg), "lagrange");
  return join(homedir(), ".cache", "lagrange");
}

function sizeMismatch(path: string, split: DatasetSplitInfo): DatasetChecksumError | undefined {
  if (split.bytes === undefined) return undefined;
  const size = statSync(path).size;
  if (size === split.bytes) return undefined;
  return new DatasetChecksumError(
    `${path}: ${size} bytes, expected ${split.bytes}${checksumNote(split)}; wrong or damaged file`,
    String(split.bytes),
    String(size),
  );
}

/**
 * Where a split is on this machine, without downloading or hashing: the mirror, then the cache.
 * A sealed split missing from the mirror is `absent` (see `includeSealed`). A mirror file whose
 * size differs from the registry's throws a DatasetChecksumError.
 */
export function locateSplit(
  datasetName: string,
  splitName: string,
  options: LocateOptions = {},
): SplitLocation {
  const dataset = getDataset(datasetName, options.catalog);
  const split = getSplit(datasetName, splitName, options.catalog);
  const mirror = findMirrorDir(options);
  const destinations: string[] = [];
  if (mirror !== undefined) {
    const path = join(mirror, dataset.folder, split.file);
    if (isFile(path)) {
      const mismatch = sizeMismatch(path, split);
      if (mismatch !== undefined) throw mismatch;
      return { status: "available", source: "mirror", path, dataset, split };
    }
    if (split.sealed === true && options.includeSealed !== true) {
      return {
        status: "absent",
        reason: "sealed",
        dataset,
        split,
        message:
          `${dataset.name} ${split.name} (${split.file}) is a sealed test split, absent from ` +
          `the mirror ${mirror}; tune and report on the other splits`,
      };
    }
    destinations.push(path);
  }
  const cached = join(cacheDir(options), dataset.folder, split.file);
  if (isFile(cached)) return { status: "available", source: "cache", path: cached, dataset, split };
  destinations.push(cached);
  return { status: "missing", dataset, split, destinations };
}

/** The path of a split available on this machine (mirror or cache), else undefined. */
export function findSplitFile(
  datasetName: string,
  splitName: string,
  options: LocateOptions = {},
): string | undefined {
  const found = locateSplit(datasetName, splitName, options);
  return found.status === "available" ? found.path : undefined;
}

/** SHA-256 of a file, hex. */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  // Through the one input opener: a split that is a device, or an endless pipe, is refused.
  for await (const chunk of await openInput(path, {
    kind: "data",
    ...(signal === undefined ? {} : { signal }),
  })) {
    hash.update(chunk);
  }
  return hash.digest("hex");
}

function isOffline(options: ResolveOptions): boolean {
  if (options.offline !== undefined) return options.offline;
  const flag = envOf(options)[OFFLINE_ENV];
  return flag === "1" || flag === "true";
}

/** ` (SHA-256 …)` for a split whose checksum is known, else a note that none was published. */
function checksumNote(split: DatasetSplitInfo): string {
  return split.sha256 === undefined
    ? " (no SHA-256 published for this sealed split)"
    : ` (SHA-256 ${split.sha256})`;
}

function placementHint(
  dataset: DatasetInfo,
  split: DatasetSplitInfo,
  destinations: readonly string[],
): string {
  const urls = split.sources.map((s) => s.url);
  return (
    `place ${split.file}${checksumNote(split)} at ${destinations.join(" or ")}` +
    (urls.length > 0 ? `; it can be downloaded from ${urls.join(" or ")}` : "") +
    `; or set ${DATA_DIR_ENV} to a directory holding ${dataset.folder}/${split.file}`
  );
}

/**
 * Finds a split, downloading it into the cache when it is neither in the mirror nor in the
 * cache. Cache hits are hashed; a cache file that fails its checksum is fetched again and the good
 * copy renamed over it (it is never removed first: offline, or when no download succeeds, it is
 * kept and the error names it and the expected checksum). Downloads stream into a temporary file beside the destination, are checked (size and
 * SHA-256) and renamed into place, so a failed, truncated or wrong download leaves nothing
 * behind. Offline with no copy: a DatasetUnavailableError that names the file and where to put it.
 */
export async function resolveSplit(
  datasetName: string,
  splitName: string,
  options: ResolveOptions = {},
): Promise<SplitResolution> {
  options.signal?.throwIfAborted();
  const location = locateSplit(datasetName, splitName, options);
  if (location.status === "absent") return location;
  const { dataset, split } = location;
  let damaged = "";
  if (location.status === "available") {
    if (location.source === "mirror") {
      if (options.verifyMirror === true) await verifyFile(location.path, split, options.signal);
      return location;
    }
    // A sealed split with no published checksum came into the cache from a download that its
    // archive's MD5 vouched for (the only way one is fetched): nothing more can be checked.
    if (split.sha256 === undefined) return location;
    const actual = await sha256File(location.path, options.signal);
    if (actual === split.sha256) return location;
    // Kept: offline nothing can replace it, and online a good download is renamed over it (a
    // failed one leaves it as it was). A file that cannot be replaced is never deleted.
    if (isOffline(options)) {
      throw new DatasetChecksumError(
        `${dataset.name} ${split.name}: the cached copy ${location.path} has SHA-256 ${actual}, expected ${split.sha256}; it was kept (offline, nothing could replace it): check it, then remove it, or run without ${OFFLINE_ENV}=1 to fetch a good copy over it`,
        split.sha256,
        actual,
      );
    }
    damaged = ` (the damaged copy at ${location.path}, SHA-256 ${actual}, was kept)`;
  }
  const destination = join(cacheDir(options), dataset.folder, split.file);
  const mirror = findMirrorDir(options);
  const destinations =
    location.status === "missing"
      ? location.destinations
      : [...(mirror === undefined ? [] : [join(mirror, dataset.folder, split.file)]), destination];
  if (isOffline(options)) {
    throw new DatasetUnavailableError(
      `${dataset.name} ${split.name} is not available offline: ${placementHint(dataset, split, destinations)}`,
      destinations,
    );
  }
  const sources: readonly DownloadSource[] =
    options.downloadBaseUrl !== undefined
      ? [
          {
            kind: "file",
            url: `${options.downloadBaseUrl.replace(/\/+$/, "")}/${dataset.folder}/${split.file}`,
          },
        ]
      : split.sources;
  const failures: Error[] = [];
  for (const source of sources) {
    try {
      await downloadTo(destination, source, dataset, split, options);
      return { status: "available", source: "download", path: destination, dataset, split };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      failures.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  const reason =
    failures.length > 0
      ? failures.map((f) => f.message).join("; ")
      : "no download source is registered";
  const message = `${dataset.name} ${split.name} could not be downloaded${damaged} (${reason}); ${placementHint(dataset, split, destinations)}`;
  // A wrong body is worth more alarm than an unreachable server: it may be a changed upstream file.
  const mismatch = failures.find((f) => f instanceof DatasetChecksumError);
  if (mismatch !== undefined) {
    throw new DatasetChecksumError(message, mismatch.expected, mismatch.actual);
  }
  throw new DatasetUnavailableError(message, destinations);
}

async function verifyFile(path: string, split: DatasetSplitInfo, signal?: AbortSignal) {
  if (split.sha256 === undefined) return; // a sealed split with no published checksum
  const actual = await sha256File(path, signal);
  if (actual !== split.sha256) {
    throw new DatasetChecksumError(
      `${path}: SHA-256 ${actual}, expected ${split.sha256}; wrong or damaged file`,
      split.sha256,
      actual,
    );
  }
}

async function fetchOk(url: string, options: ResolveOptions): Promise<Response> {
  const doFetch: FetchLike = options.fetch ?? ((u, init) => fetch(u, init));
  let response: Response;
  try {
    response = await doFetch(url, options.signal === undefined ? {} : { signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const why = error instanceof Error ? error.message : String(error);
    throw new DatasetDownloadError(`${url}: request failed (${why})`, url);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel().catch(() => {});
    throw new DatasetDownloadError(
      `${url}: HTTP ${response.status} ${response.statusText}`.trimEnd(),
      url,
      response.status,
    );
  }
  return response;
}

/** Streams the body into `write`, reporting progress; throws on a broken or oversized body. */
async function streamBody(
  response: Response,
  url: string,
  limitBytes: number | undefined,
  write: (chunk: Uint8Array) => Promise<void>,
  progress: (received: number, total: number | undefined) => void,
  signal: AbortSignal | undefined,
): Promise<number> {
  const header = response.headers.get("content-length");
  const contentLength = header === null ? undefined : Number(header);
  const total = Number.isFinite(contentLength) ? contentLength : undefined;
  let received = 0;
  progress(0, total);
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      received += chunk.byteLength;
      if (limitBytes !== undefined && received > limitBytes) {
        throw new DatasetDownloadError(
          `${url}: body is larger than the expected ${limitBytes} bytes`,
          url,
        );
      }
      await write(chunk);
      progress(received, total);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (signal?.aborted) throw signal.reason;
    if (error instanceof DatasetDownloadError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new DatasetDownloadError(
      `${url}: transfer broke off after ${received} bytes (${why})`,
      url,
    );
  }
  if (total !== undefined && received !== total) {
    throw new DatasetDownloadError(
      `${url}: truncated transfer, ${received} of ${total} bytes`,
      url,
    );
  }
  return received;
}

async function downloadTo(
  destination: string,
  source: DownloadSource,
  dataset: DatasetInfo,
  split: DatasetSplitInfo,
  options: ResolveOptions,
): Promise<void> {
  if (split.sha256 === undefined && source.kind === "file") {
    throw new DatasetDownloadError(
      `${source.url}: ${dataset.name} ${split.name} has no published SHA-256 and a plain file cannot be verified otherwise; refusing to download it`,
      source.url,
    );
  }
  await mkdir(dirname(destination), { recursive: true });
  const report = (received: number, total: number | undefined) =>
    options.onProgress?.({
      dataset: dataset.name,
      split: split.name,
      file: split.file,
      url: source.url,
      receivedBytes: received,
      totalBytes: source.kind === "file" ? (split.bytes ?? total) : total,
    });
  const response = await fetchOk(source.url, options);
  // Verified before it is committed: a failed, truncated or wrong download leaves nothing.
  const file = await openAtomicFile(destination);
  let committed = false;
  try {
    const hash = createHash("sha256");
    if (source.kind === "file") {
      const written = await streamBody(
        response,
        source.url,
        split.bytes,
        async (chunk) => {
          hash.update(chunk);
          await file.write(chunk);
        },
        report,
        options.signal,
      );
      if (split.bytes !== undefined && written !== split.bytes) {
        throw new DatasetChecksumError(
          `${source.url}: ${written} bytes, expected ${split.bytes} for ${split.file}`,
          String(split.bytes),
          String(written),
        );
      }
    } else {
      const parts: Uint8Array[] = [];
      const md5 = createHash("md5");
      await streamBody(
        response,
        source.url,
        undefined,
        async (chunk) => {
          md5.update(chunk);
          parts.push(chunk);
        },
        report,
        options.signal,
      );
      const archiveMd5 = md5.digest("hex");
      if (archiveMd5 !== source.archiveMd5) {
        throw new DatasetChecksumError(
          `${source.url}: archive MD5 ${archiveMd5}, expected ${source.archiveMd5}`,
          source.archiveMd5,
          archiveMd5,
        );
      }
      let member: Buffer;
      try {
        member = extractZipMember(Buffer.concat(parts), source.member, source.url);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new DatasetDownloadError(why, source.url);
      }
      hash.update(member);
      await file.write(member);
    }
    const actual = hash.digest("hex");
    // Without a published SHA-256 (a sealed split) the archive's MD5, checked above, vouches.
    if (split.sha256 !== undefined && actual !== split.sha256) {
      throw new DatasetChecksumError(
        `${source.url}: SHA-256 ${actual}, expected ${split.sha256} for ${dataset.name} ${split.name} (${split.file}); nothing was written to the cache`,
        split.sha256,
        actual,
      );
    }
    await file.commit();
    committed = true;
  } finally {
    if (!committed) await file.abort();
  }
}
