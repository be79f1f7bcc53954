import { statSync } from "node:fs";
import { type CrfModel, loadModelFromBytes } from "@lagrange/chain-crf";
import { LagrangeError, lagrangeErrorCode } from "@lagrange/core";
import {
  checkInputFile,
  InputFileError,
  type InputSizeKind,
  type InputStream,
  InputTooLargeError,
  openInput,
  readInput,
} from "@lagrange/core/node";
import { type Corpus, checkLineEndings, DataFormatError } from "@lagrange/datasets";
import { type OpenCorpusOptions, openCorpus } from "@lagrange/datasets/node";
import { declaredInputKind, type InputFileKind } from "./files-declared.js";

/**
 * A file the command line names must exist, be a file and be readable: otherwise a usage error
 * (exit 2) naming the option, the same for every option (a model, constraints, a plug-in, data,
 * a positional file): `--data x.conll: no such file`, `--data x.conll: cannot be read
 * (permission denied)` — also for a file in a folder that cannot be searched. Checked before any
 * work, without opening the file (a FIFO is not consumed).
 */
export function requireFile(option: string, path: string): void {
  try {
    checkInputFile(path);
  } catch (error) {
    throw namedInputError(option, error);
  }
}

/**
 * core's `InputFileError` (a file that cannot be opened, or a device, from any reader) as this
 * command line's usage error naming the option, and its `InputTooLargeError` as a bad-input error
 * naming it; anything else as it is.
 */
export function namedInputError(option: string, error: unknown): unknown {
  if (error instanceof InputFileError) {
    return new LagrangeError("usage", `${option} ${error.message}`, { cause: error });
  }
  if (error instanceof InputTooLargeError) {
    return new LagrangeError("bad-input", `${option} ${error.message}`, { cause: error });
  }
  return error;
}

/**
 * The kind whose cap a read applies: the one given, else the one the running command declares for
 * `option` (see files-declared.ts), else a model's (the largest cap of a file read whole) for a
 * reader outside a declared command (a test calling a command directly).
 */
function kindOf(option: string, kind: InputFileKind | undefined): InputSizeKind {
  const declared = kind ?? declaredInputKind(option) ?? declaredInputKind(`<${option}>`);
  return declared === undefined || declared === "folder" ? "model" : declared;
}

/**
 * What was read from a pipe or a FIFO (`--model <(zcat m.gz)`), by path: such an input can be
 * read only once, and a command may need it twice (to tell a model's kind by its first bytes, for
 * worker threads, for a constraints file's text). Regular files are read again instead.
 */
const readFromPipes = new Map<string, Uint8Array>();

/**
 * The bytes of a file the command line names, read to its end through core's one input opener
 * (a FIFO with no writer yet waits stoppably: `signal`); a file that cannot be opened is a usage
 * error naming `option`.
 */
export async function readNamedInput(
  option: string,
  path: string,
  signal?: AbortSignal,
  looksRight?: (head: Uint8Array) => boolean,
  kind?: InputFileKind,
): Promise<Uint8Array> {
  const kept = readFromPipes.get(path);
  if (kept !== undefined) return kept;
  // A device is refused and the kind's cap applies, to a pipe as it is read.
  const options = { kind: kindOf(option, kind), ...(signal === undefined ? {} : { signal }) };
  try {
    // A regular file: one buffer of its size. Anything else: kept, since it cannot be read again.
    if (isRegularFile(path)) return await readInput(path, options);
    return await keepPipeInput(path, await openInput(path, options), looksRight);
  } catch (error) {
    throw namedInputError(option, error);
  }
}

/**
 * Reads an opened input that is not a regular file (a pipe, a FIFO, a device) to its end, and
 * keeps its bytes for the next reader of `path` in this process. When its first chunk does not
 * look like the file expected (`looksRight`), reading stops there: the reader then says what is
 * wrong with those bytes, and `/dev/zero` given as a model is not read without end.
 */
export async function keepPipeInput(
  path: string,
  input: InputStream,
  looksRight?: (head: Uint8Array) => boolean,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of input) {
    chunks.push(chunk);
    total += chunk.length;
    if (chunks.length === 1 && looksRight !== undefined && !looksRight(chunk)) break;
  }
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  readFromPipes.set(path, bytes);
  return bytes;
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Opens a file the command line names for streaming (core's `openInput`), naming the option on failure. */
export async function openNamedInput(
  option: string,
  path: string,
  signal?: AbortSignal,
): Promise<InputStream> {
  try {
    return await openInput(path, {
      kind: kindOf(option, undefined),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    throw namedInputError(option, error);
  }
}

/**
 * A text file the command line names (template, constraints, graph, predictions); see
 * {@link readNamedInput}. Lines that end in CR alone are refused, naming the option, the file and
 * the line, as in data files; CRLF is read.
 */
export async function readNamedText(
  option: string,
  path: string,
  signal?: AbortSignal,
  kind?: InputFileKind,
): Promise<string> {
  const text = new TextDecoder().decode(
    await readNamedInput(option, path, signal, undefined, kind),
  );
  checkNamedLineEndings(option, text, path);
  return text;
}

/** {@link checkLineEndings} with the option named in the message. */
export function checkNamedLineEndings(option: string, text: string, file: string): void {
  try {
    checkLineEndings(text, file);
  } catch (error) {
    if (!(error instanceof DataFormatError)) throw error;
    throw new LagrangeError("bad-input", `${option} ${error.message}`, { cause: error });
  }
}

/** `--model`: present and readable (exit 2 otherwise), then read and validated (exit 3 when malformed). */
export async function readModel(
  path: string,
  option = "--model",
  signal?: AbortSignal,
): Promise<CrfModel> {
  return loadModelFromBytes(await readModelBytes(path, option, signal), path);
}

/**
 * The bytes of a model file (of either kind) the command line names: present and readable (exit
 * 2 otherwise), and read once (see {@link readNamedInput}); a pipe whose first bytes are no
 * model's is not read further.
 */
export async function readModelBytes(
  path: string,
  option: string,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  requireFile(option, path);
  return readNamedInput(option, path, signal, startsLikeAModel);
}

/**
 * Whether bytes can begin a Lagrange model file: both formats' magic starts "LGR" (CRF
 * "LGRCRF\r\n", L2S "LGRL2S\r\n"); fewer bytes than that cannot tell yet.
 */
export function startsLikeAModel(head: Uint8Array): boolean {
  return head.length < 3 || (head[0] === 0x4c && head[1] === 0x47 && head[2] === 0x52);
}

/**
 * `--data`, `--dev`: a registry name[:split] or a path. Usage errors (no such file or name, an
 * unknown split or format) name the option; malformed data names its file and line itself.
 */
export async function openData(
  option: string,
  spec: string,
  options: OpenCorpusOptions,
): Promise<Corpus> {
  try {
    return await openCorpus(spec, options);
  } catch (error) {
    if (error instanceof InputFileError) throw namedInputError(option, error);
    if (lagrangeErrorCode(error) === "usage") {
      throw new LagrangeError("usage", `${option}: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  }
}
