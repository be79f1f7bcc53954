import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";
import { LagrangeError } from "@lagrange/core";
import { redactSecrets, redactUrl } from "@lagrange/core/node";
import type { Redis } from "ioredis";
import { modelKeys } from "./connection.js";
import { DEFAULT_MAX_MODEL_BYTES, type TagJobSpec } from "./spec.js";
import { sha256Hex } from "./tag-shard.js";

/**
 * What a worker lets a spec make it read: models stored in Redis by checksum always; a path in
 * `modelDir` only when it has one; a URL only when `allowUrls`. Nothing else — a spec comes from
 * Redis, and whoever can write there must not make every worker read `/etc/shadow`, `/dev/zero`
 * or a FIFO, or fetch an address of their choosing.
 */
export interface ModelAccess {
  /** The Redis connection models stored by checksum are read through. */
  readonly client: Redis;
  readonly queue: string;
  /** The directory models named by a relative path are read from (symlinks must stay inside). */
  readonly modelDir?: string;
  /** Fetch `http(s)://` models (off by default). */
  readonly allowUrls?: boolean;
  /** Largest model read, in bytes (default {@link DEFAULT_MAX_MODEL_BYTES}). */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/** A model a worker may not, or cannot, read: the same on every try (code `usage`). */
export class ModelRefusedError extends LagrangeError {
  override readonly name = "ModelRefusedError";
  /** `too-large`: the model is above the cap it was read under (a caller may say more). */
  readonly reason: "too-large" | undefined;
  constructor(message: string, options?: ErrorOptions & { readonly reason?: "too-large" }) {
    super("usage", message, options);
    this.reason = options?.reason;
  }
}

/** The model's bytes changed between submission and tagging: retrying cannot help. */
export class ModelChangedError extends LagrangeError {
  override readonly name = "ModelChangedError";
  constructor(model: string, expected: string) {
    // The checksum found is not quoted: it would tell the submitter something of a worker's file.
    super(
      "bad-input",
      `model ${model}: its bytes do not match the checksum recorded at submission (sha256 ${expected.slice(0, 12)}…); submit the job again`,
    );
  }
}

const MIB = 1024 * 1024;

function sizeText(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${bytes} bytes`;
}

/**
 * The bytes of the model a spec names, from where the worker allows, checked against the spec's
 * size and checksum before anything parses them. Every refusal is a {@link ModelRefusedError}
 * naming the spec's model and why; none quotes a file's content or where a symlink points.
 */
export async function readSpecModel(spec: TagJobSpec, access: ModelAccess): Promise<Uint8Array> {
  const maxBytes = access.maxBytes ?? DEFAULT_MAX_MODEL_BYTES;
  // A URL's credentials and tokens are what the worker fetches with, never what it says.
  const shown = redactUrl(spec.model);
  const name = `model ${shown}`;
  if (spec.modelBytes > maxBytes) {
    throw new ModelRefusedError(
      `${name}: ${sizeText(spec.modelBytes)}, above this worker's cap of ${sizeText(maxBytes)}`,
    );
  }
  let bytes: Uint8Array;
  switch (spec.modelSource) {
    case "redis":
      bytes = await readStoredModel(spec, access, maxBytes);
      break;
    case "model-dir": {
      if (access.modelDir === undefined) {
        throw new ModelRefusedError(
          `${name}: the job names a model in a model directory, and this worker was given none (it reads models stored in Redis only)`,
        );
      }
      const path = await resolveInside(access.modelDir, spec.model, name);
      bytes = await readRegularFile(path, { maxBytes, what: name, noFollow: true });
      break;
    }
    case "url":
      if (access.allowUrls !== true) {
        throw new ModelRefusedError(
          `${name}: this worker does not fetch models from URLs (a job could make it fetch any address); it reads models stored in Redis`,
        );
      }
      bytes = await fetchBounded(spec.model, maxBytes, name, access.signal);
      break;
  }
  if (bytes.length !== spec.modelBytes || sha256Hex(bytes) !== spec.modelSha256) {
    if (spec.modelSource === "redis") throw await discardStoredModel(spec, access, bytes);
    throw new ModelChangedError(shown, spec.modelSha256);
  }
  return bytes;
}

/**
 * Deletes a stored model — only while it still holds the bytes that failed (a submit may have
 * stored the right ones meanwhile): left there, it would fail every later job that uses it,
 * while deleted, the next submission of the model stores it again.
 */
const DISCARD_MODEL = `
local stored = redis.call('GET', KEYS[1])
if stored and redis.sha1hex(stored) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;

async function discardStoredModel(
  spec: TagJobSpec,
  access: ModelAccess,
  bytes: Uint8Array,
): Promise<ModelRefusedError> {
  const keys = modelKeys(access.queue, spec.modelSha256);
  await access.client.eval(
    DISCARD_MODEL,
    1,
    keys.bytes,
    createHash("sha1").update(bytes).digest("hex"),
  );
  return new ModelRefusedError(
    `model ${spec.model}: the copy stored in Redis does not match its checksum (sha256 ${spec.modelSha256.slice(0, 12)}…), so it was deleted; submitting the model again stores it anew`,
  );
}

async function readStoredModel(
  spec: TagJobSpec,
  access: ModelAccess,
  maxBytes: number,
): Promise<Uint8Array> {
  const keys = modelKeys(access.queue, spec.modelSha256);
  const length = await access.client.strlen(keys.bytes);
  if (length === 0) {
    throw new ModelRefusedError(
      `model ${spec.model}: not stored in Redis (sha256 ${spec.modelSha256.slice(0, 12)}…): its job was removed, or the stored copy failed its checksum and was deleted; submitting the model again stores it anew`,
    );
  }
  if (length > maxBytes) {
    throw new ModelRefusedError(
      `model ${spec.model}: ${sizeText(length)} in Redis, above this worker's cap of ${sizeText(maxBytes)}`,
    );
  }
  const bytes = await access.client.getBuffer(keys.bytes);
  if (bytes === null)
    throw new ModelRefusedError(`model ${spec.model}: removed from Redis meanwhile`);
  return bytes;
}

/**
 * `relative` resolved in `dir`, symlinks and all, refused unless the result is still inside
 * `dir`: `../../etc/shadow` and a symlink to it are the same escape.
 */
async function resolveInside(dir: string, relative: string, name: string): Promise<string> {
  if (isAbsolute(relative) || relative.includes("\0")) {
    throw new ModelRefusedError(`${name}: not a path relative to the model directory`);
  }
  let root: string;
  try {
    root = await realpath(dir);
  } catch (error) {
    throw new ModelRefusedError(
      `${name}: this worker's model directory cannot be read (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`,
    );
  }
  let resolved: string;
  try {
    resolved = await realpath(resolve(root, relative));
  } catch (error) {
    throw new ModelRefusedError(
      `${name}: not in this worker's model directory (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`,
    );
  }
  if (!resolved.startsWith(root + sep)) {
    throw new ModelRefusedError(`${name}: outside this worker's model directory`);
  }
  return resolved;
}

function kindOf(mode: number): string {
  switch (mode & constants.S_IFMT) {
    case constants.S_IFDIR:
      return "directory";
    case constants.S_IFCHR:
      return "character device";
    case constants.S_IFBLK:
      return "block device";
    case constants.S_IFIFO:
      return "FIFO";
    case constants.S_IFSOCK:
      return "socket";
    case constants.S_IFLNK:
      return "symbolic link";
    default:
      return "special file";
  }
}

/**
 * A regular file's bytes, at most `maxBytes`. Opened without blocking (a FIFO with no writer
 * would block `open` for ever) and checked through the open descriptor, so that what is read is
 * what was checked: a device (`/dev/zero`), a FIFO or a directory is refused before any read.
 * `noFollow` refuses a symlink as the last component (callers that resolved it already).
 */
export async function readRegularFile(
  path: string,
  options: { readonly maxBytes: number; readonly what: string; readonly noFollow?: boolean },
): Promise<Uint8Array> {
  const flags =
    constants.O_RDONLY |
    constants.O_NONBLOCK |
    (options.noFollow === true ? constants.O_NOFOLLOW : 0);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ModelRefusedError(
      `${options.what}: ${code === "ENOENT" ? "no such file" : code === "ELOOP" ? "a symbolic link" : `cannot open it (${code})`}`,
      { cause: error },
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new ModelRefusedError(`${options.what}: not a regular file (a ${kindOf(stat.mode)})`);
    }
    if (stat.size > options.maxBytes) {
      throw new ModelRefusedError(
        `${options.what}: ${sizeText(stat.size)}, above the cap of ${sizeText(options.maxBytes)}`,
        { reason: "too-large" },
      );
    }
    // One byte more than the size: a file that grew since is noticed rather than cut.
    const buffer = Buffer.allocUnsafe(stat.size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > stat.size) throw new ModelRefusedError(`${options.what}: grew while it was read`);
    return buffer.subarray(0, filled);
  } catch (error) {
    if (error instanceof LagrangeError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ModelRefusedError(`${options.what}: cannot read it (${code})`, { cause: error });
  } finally {
    await handle.close();
  }
}

/**
 * `fetch` refuses a URL with a user or password in it: they are sent as HTTP Basic credentials
 * instead, and a redirect is then refused rather than followed (it would take them elsewhere).
 */
function withBasicAuth(url: string): [string, RequestInit] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url, {}];
  }
  if (parsed.username === "" && parsed.password === "") return [url, {}];
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  const basic = Buffer.from(`${user}:${password}`).toString("base64");
  return [parsed.href, { headers: { authorization: `Basic ${basic}` }, redirect: "error" }];
}

/** Undici says "fetch failed" and keeps the reason (refused, a redirect, a bad port) in its cause. */
function fetchFailure(error: unknown): string {
  const message = (error as Error).message;
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${message}: ${cause.message}` : message;
}

/** How long a model download may take before it is abandoned. */
const FETCH_TIMEOUT_MS = 120_000;

/** An http(s) URL's body, refused past `maxBytes` (by its Content-Length, or while it streams). */
export async function fetchBounded(
  url: string,
  maxBytes: number,
  what: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let response: Response;
  try {
    const [plain, init] = withBasicAuth(url);
    response = await fetch(plain, {
      ...init,
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ModelRefusedError(
      `${what}: cannot fetch it (${redactSecrets(fetchFailure(error))})`,
      { cause: error },
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ModelRefusedError(`${what}: HTTP ${response.status} ${response.statusText}`);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new ModelRefusedError(
      `${what}: ${sizeText(declared)}, above the cap of ${sizeText(maxBytes)}`,
      { reason: "too-large" },
    );
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new ModelRefusedError(`${what}: more than the cap of ${sizeText(maxBytes)}`, {
        reason: "too-large",
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
