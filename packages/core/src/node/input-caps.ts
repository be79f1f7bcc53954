import { parseByteSize } from "../byte-size.js";
import { LagrangeError } from "../errors.js";

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/**
 * The most bytes read from one input of each kind: generous for real files, finite for a file
 * given by mistake or an endless pipe. A text read whole is one JavaScript string, which V8 caps
 * at 2^29 − 24 characters (and stores in two bytes a character beyond Latin-1): hence 256 MiB for
 * the text kinds held whole, 20 times the largest corpus of the dataset mirror (14 MB, UD English
 * EWT train) and above any real lexicon, clusters file or UAI graph. Streamed kinds (data, raw text
 * to cluster) are held a line at a time: their cap only stops an endless pipe. A model is one
 * buffer; 2 GiB is 40 times the largest model the project trains. A template, constraints file or
 * plug-in is written by hand; a password is a line. Raised per kind with
 * {@link INPUT_CAPS_VARIABLE} (`lexicon=2G,template=64M`).
 */
export const INPUT_SIZE_CAPS = {
  data: 64 * GiB,
  model: 2 * GiB,
  template: 16 * MiB,
  lexicon: 256 * MiB,
  clusters: 256 * MiB,
  constraints: 64 * MiB,
  plugin: 16 * MiB,
  graph: 256 * MiB,
  predictions: 256 * MiB,
  text: 64 * GiB,
  password: 4 * KiB,
} as const satisfies Readonly<Record<string, number>>;

/** What an input file is, for its size cap (the CLI declares each file flag with one). */
export type InputSizeKind = keyof typeof INPUT_SIZE_CAPS;

/** The environment variable that raises (or lowers) caps: `KIND=SIZE[,KIND=SIZE…]`. */
export const INPUT_CAPS_VARIABLE = "LAGRANGE_MAX_INPUT";

function isSizeKind(name: string): name is InputSizeKind {
  return Object.hasOwn(INPUT_SIZE_CAPS, name);
}

/**
 * The caps {@link INPUT_CAPS_VARIABLE} sets: `lexicon=2G,template=64MiB` (k/M/G/T powers of 1000,
 * KiB/MiB/GiB/TiB of 1024, as `--max-memory`). Anything else is a `usage` error naming the
 * variable, so that a misspelt override never leaves the default silently in place.
 */
export function parseInputCaps(text: string): Partial<Record<InputSizeKind, number>> {
  const caps: Partial<Record<InputSizeKind, number>> = {};
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue;
    const equals = entry.indexOf("=");
    const kind = entry.slice(0, Math.max(equals, 0)).trim().toLowerCase();
    const bytes = equals < 0 ? undefined : parseByteSize(entry.slice(equals + 1));
    if (!isSizeKind(kind) || bytes === undefined) {
      throw new LagrangeError(
        "usage",
        `${INPUT_CAPS_VARIABLE}: expected KIND=SIZE[,KIND=SIZE…] with KIND one of ${Object.keys(INPUT_SIZE_CAPS).join(", ")} and SIZE such as 64M or 2GiB, got "${entry.trim()}"`,
      );
    }
    caps[kind] = bytes;
  }
  return caps;
}

/** The cap on one input of `kind`: {@link INPUT_SIZE_CAPS}, unless the environment sets it. */
export function inputSizeCap(
  kind: InputSizeKind,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  const given = env[INPUT_CAPS_VARIABLE];
  return (given === undefined ? undefined : parseInputCaps(given)[kind]) ?? INPUT_SIZE_CAPS[kind];
}

/** A byte count for people: `2.0 MiB (2097152 bytes)`; below 1 KiB, `512 bytes`. */
export function byteSizeText(bytes: number): string {
  if (bytes < KiB) return `${bytes} bytes`;
  const [unit, scale] =
    bytes >= GiB ? ["GiB", GiB] : bytes >= MiB ? ["MiB", MiB] : (["KiB", KiB] as const);
  return `${(bytes / scale).toFixed(1)} ${unit} (${bytes} bytes)`;
}

/**
 * An input larger than the most accepted for it: a `bad-input` error naming the file, its size
 * (or that a pipe gave more), the cap and how to raise it. `size` is null for a pipe or a device,
 * whose length is unknown: reading stopped at the cap.
 */
export class InputTooLargeError extends LagrangeError {
  override readonly name = "InputTooLargeError";
  constructor(
    readonly path: string,
    readonly size: number | null,
    readonly cap: number,
    readonly kind: InputSizeKind | undefined,
  ) {
    super("bad-input", `${path}: ${tooLargeText(size, cap, kind)}`);
  }
}

function tooLargeText(size: number | null, cap: number, kind: InputSizeKind | undefined): string {
  if (kind === undefined) return `larger than ${cap} bytes, the most accepted here`;
  const what = size === null ? `more than ${byteSizeText(cap)} read` : byteSizeText(size);
  return `${what}, over the ${byteSizeText(cap)} cap on ${kind} files; raise it with ${INPUT_CAPS_VARIABLE}=${kind}=SIZE (e.g. ${kind}=${suggestion(size ?? cap * 2)})`;
}

/** A round size above `bytes`, in the variable's own units. */
function suggestion(bytes: number): string {
  if (bytes < MiB) return `${Math.ceil(bytes / KiB) + 1}KiB`;
  if (bytes < GiB) return `${Math.ceil(bytes / MiB) + 1}MiB`;
  return `${Math.ceil(bytes / GiB) + 1}GiB`;
}
