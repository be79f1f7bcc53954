import { LagrangeError } from "@lagrange/core";
import { STANDARD_DECODERS, type TaggingSpec } from "@lagrange/recipes";
import { SHARD_FORMATS, type ShardFormat } from "./shards.js";

/**
 * Where workers get a job's model:
 * - `redis`: its bytes stored in Redis under its SHA-256 at submission (the default: workers need
 *   no shared file system, and a spec can name no file of theirs);
 * - `model-dir`: a path relative to the directory each worker was given (`modelDir`), for models
 *   too big to copy into Redis;
 * - `url`: an http(s) URL, fetched only by workers that allow it (a spec could name any address).
 */
const MODEL_SOURCES = ["redis", "model-dir", "url"] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

/**
 * How a job's shards are tagged: a {@link TaggingSpec} but for its model (the job says where
 * workers get that) and plug-ins (workers never load any); the constraints travel as their text.
 */
export interface JobTagging extends Pick<TaggingSpec, "decoder"> {
  readonly constraints?: { readonly source: string; readonly text: string };
}

/**
 * What a worker needs to tag any shard of a job: recorded at submission, read from Redis — and
 * so never trusted: {@link parseTagJobSpec} checks every field before a worker acts on it.
 */
export interface TagJobSpec extends JobTagging {
  readonly modelSource: ModelSource;
  /**
   * `redis`: the model file's name at submission (for messages only); `model-dir`: its path
   * relative to the workers' model directory; `url`: the URL.
   */
  readonly model: string;
  /** SHA-256 of the model's bytes: a worker refuses bytes that differ. */
  readonly modelSha256: string;
  /** The model's size in bytes: a worker refuses a model above its cap before reading it. */
  readonly modelBytes: number;
  /**
   * One of the standard decoders (workers never load plug-ins); default the model's. The
   * constraints file's text travels in Redis, so workers need no copy of it.
   */
  /** The corpus file's name: errors in a shard name it and the corpus's own line numbers. */
  readonly data: string;
  readonly format: ShardFormat;
  /** The data has no gold column (default: read off its width, as `lagrange tag` does). */
  readonly unlabeled?: boolean;
}

/** What a queued shard's BullMQ job carries (its text is in the job's shards hash). */
export interface ShardJobData {
  readonly job: string;
  /** The nonce of the submission the shard belongs to (see `jobKeys`). */
  readonly submission: string;
  readonly index: number;
  /** The corpus line the shard starts on. */
  readonly firstLine: number;
  readonly sentences: number;
}

/** Largest constraints text a spec may carry (16 MiB). */
export const MAX_CONSTRAINTS_CHARS = 16 * 1024 * 1024;
/** Largest spec a worker reads from Redis: the constraints and a little more. */
export const MAX_SPEC_BYTES = MAX_CONSTRAINTS_CHARS * 3 + 64 * 1024;
/** Largest shard text (64 MiB): `submit` refuses a larger shard, a worker does not read one. */
export const MAX_SHARD_BYTES = 64 * 1024 * 1024;
/** Largest model a worker reads unless told otherwise (1 GiB). */
export const DEFAULT_MAX_MODEL_BYTES = 1024 * 1024 * 1024;
/** Names (files, paths, URLs) in a spec: at most this long, and no control characters. */
const MAX_NAME_CHARS = 4096;

/** A submission's nonce: what `submit` draws, and all a worker accepts. */
const SUBMISSION_PATTERN = /^[0-9a-f]{12}$/;
/** A job name: a plain word keeps Redis keys and BullMQ ids unambiguous. */
export const JOB_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const SPEC_FIELDS: ReadonlySet<string> = new Set<string>([
  "modelSource",
  "model",
  "modelSha256",
  "modelBytes",
  "decoder",
  "constraints",
  // A job of an earlier lagrange: the constraints' file name beside their text.
  "constraintsSource",
  "data",
  "format",
  "unlabeled",
]);

/** A spec or shard record that is not what `submit` writes: the message names the field. */
export class MalformedSpecError extends LagrangeError {
  override readonly name = "MalformedSpecError";
  constructor(what: string, field: string, expected: string, found: unknown) {
    super("bad-input", `${what}: ${field}: expected ${expected}, found ${describe(found)}`);
  }
}

/** A value, described without quoting it: a spec's strings could be anything, of any size. */
function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "string") {
    return `a string of ${value.length} character${value.length === 1 ? "" : "s"}`;
  }
  if (typeof value === "number") {
    return Number.isFinite(value) && Math.abs(value) < 1e15
      ? `the number ${value}`
      : "a number out of range";
  }
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

function isName(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length > 0 &&
    value.length <= MAX_NAME_CHARS &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    !/[\u0000-\u001f\u007f]/.test(value)
  );
}

function isCount(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max;
}

/**
 * The spec `raw` (a job's `spec` field, as read from Redis) checked field by field: every field
 * of {@link TagJobSpec} of its type and range, no other field. Throws a
 * {@link MalformedSpecError} (code `bad-input`) naming the field; never quotes its value.
 */
export function parseTagJobSpec(raw: string, job: string): TagJobSpec {
  const what = `job ${job}: its spec`;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new LagrangeError("bad-input", `${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MalformedSpecError(what, "spec", "an object", value);
  }
  const spec = value as Record<string, unknown>;
  for (const field of Object.keys(spec)) {
    if (!SPEC_FIELDS.has(field)) {
      throw new LagrangeError(
        "bad-input",
        `${what}: ${JSON.stringify(field.slice(0, 64))}: not a field of a job's spec${/plug/i.test(field) ? " (queue workers never load plug-ins)" : ""}`,
      );
    }
  }
  const fail = (field: string, expected: string): never => {
    throw new MalformedSpecError(what, field, expected, spec[field]);
  };
  if (spec.modelSource === undefined && typeof spec.model === "string") {
    throw new LagrangeError(
      "bad-input",
      `${what}: modelSource: missing (a job submitted by an earlier lagrange, whose workers read models from any path); remove it and submit it again`,
    );
  }
  const source = spec.modelSource;
  if (typeof source !== "string" || !(MODEL_SOURCES as readonly string[]).includes(source)) {
    fail("modelSource", `one of ${MODEL_SOURCES.join(", ")}`);
  }
  if (!isName(spec.model)) fail("model", `a name of 1 to ${MAX_NAME_CHARS} printable characters`);
  if (source === "model-dir" && !isRelativePath(spec.model as string)) {
    fail("model", "a path relative to the model directory, without '..'");
  }
  if (source === "url" && !/^https?:\/\//.test(spec.model as string)) {
    fail("model", "an http:// or https:// URL");
  }
  if (typeof spec.modelSha256 !== "string" || !/^[0-9a-f]{64}$/.test(spec.modelSha256)) {
    fail("modelSha256", "64 lower-case hexadecimal digits");
  }
  if (!isCount(spec.modelBytes, 1)) fail("modelBytes", "a whole number of bytes ≥ 1");
  if (spec.decoder !== undefined) {
    const known = STANDARD_DECODERS.map((d) => d.name);
    if (typeof spec.decoder !== "string" || !known.includes(spec.decoder)) {
      fail("decoder", `one of ${known.join(", ")}`);
    }
  }
  if (spec.constraintsSource !== undefined) {
    // An earlier lagrange wrote the constraints' text and their file's name in two fields.
    if (typeof spec.constraints !== "string") fail("constraintsSource", "constraints beside it");
    if (!isName(spec.constraintsSource)) fail("constraintsSource", "a file name");
    spec.constraints = { source: spec.constraintsSource, text: spec.constraints };
    delete spec.constraintsSource;
  } else if (typeof spec.constraints === "string") {
    spec.constraints = { source: "constraints", text: spec.constraints };
  }
  const given = spec.constraints as { source?: unknown; text?: unknown } | null | undefined;
  if (
    given !== undefined &&
    (typeof given !== "object" ||
      given === null ||
      Object.keys(given).some((key) => key !== "source" && key !== "text") ||
      !isName(given.source) ||
      typeof given.text !== "string" ||
      given.text.length > MAX_CONSTRAINTS_CHARS)
  ) {
    fail(
      "constraints",
      `a file's name (source) and its text of at most ${MAX_CONSTRAINTS_CHARS} characters`,
    );
  }
  if (!isName(spec.data)) fail("data", "a file name");
  if (
    typeof spec.format !== "string" ||
    !(SHARD_FORMATS as readonly string[]).includes(spec.format)
  ) {
    fail("format", `one of ${SHARD_FORMATS.join(", ")}`);
  }
  if (spec.unlabeled !== undefined && typeof spec.unlabeled !== "boolean") {
    fail("unlabeled", "true or false");
  }
  return spec as unknown as TagJobSpec;
}

/** A relative path that stays below its directory by its own components (symlinks are checked when read). */
function isRelativePath(path: string): boolean {
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) return false;
  return path.split(/[/\\]/).every((part) => part !== "..");
}

/**
 * The job, submission and shard a BullMQ job id names (`job/submission/index`, see
 * `shardJobId`), or undefined for an id `submit` does not make. The id is a key: unlike the
 * job's data, it cannot be rewritten in place.
 */
export function shardOfJobId(
  id: string | undefined,
): { readonly job: string; readonly submission: string; readonly index: number } | undefined {
  const parts = id?.split("/");
  if (parts?.length !== 3) return undefined;
  const [job = "", submission = "", index = ""] = parts;
  if (!JOB_NAME_PATTERN.test(job) || !SUBMISSION_PATTERN.test(submission)) return undefined;
  if (!/^\d{1,10}$/.test(index)) return undefined;
  return { job, submission, index: Number(index) };
}

/**
 * A shard's BullMQ job data (read from Redis: anyone who can write to it can queue a job)
 * checked field by field, and against the job's id; throws a {@link MalformedSpecError} naming
 * the field.
 */
export function parseShardJobData(data: unknown, id: string): ShardJobData {
  const what = `shard job ${JSON.stringify(id.slice(0, 200))}`;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new MalformedSpecError(what, "data", "an object", data);
  }
  const d = data as Record<string, unknown>;
  const fail = (field: string, expected: string): never => {
    throw new MalformedSpecError(what, field, expected, d[field]);
  };
  if (typeof d.job !== "string" || !JOB_NAME_PATTERN.test(d.job)) fail("job", "a job name");
  if (typeof d.submission !== "string" || !SUBMISSION_PATTERN.test(d.submission)) {
    fail("submission", "12 hexadecimal digits");
  }
  if (!isCount(d.index, 0, 2 ** 31)) fail("index", "a shard number");
  if (!isCount(d.firstLine, 1)) fail("firstLine", "a line number");
  if (!isCount(d.sentences, 0)) fail("sentences", "a count");
  const named = shardOfJobId(id);
  if (
    named !== undefined &&
    (named.job !== d.job || named.submission !== d.submission || named.index !== d.index)
  ) {
    throw new LagrangeError("bad-input", `${what}: its data names another shard than its id`);
  }
  return {
    job: d.job as string,
    submission: d.submission as string,
    index: d.index as number,
    firstLine: d.firstLine as number,
    sentences: d.sentences as number,
  };
}

/**
 * Text from Redis made safe to print on a terminal: control characters (escape sequences that
 * could rewrite the screen) become `?`; tabs and newlines stay.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g, "?");
}
