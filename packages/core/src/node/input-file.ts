import { close as closeCallback, constants, type Stats, statSync } from "node:fs";
import { Socket } from "node:net";
import { isatty, ReadStream } from "node:tty";
import { fileURLToPath } from "node:url";
import { LagrangeError } from "../errors.js";
import { descriptorBehind } from "./descriptor-link.js";
import { EAGAIN_RETRY_MS, errnoWords, fstatFd, openFd, readFd } from "./descriptors.js";
import { type InputSizeKind, InputTooLargeError, inputSizeCap } from "./input-caps.js";

/**
 * A file a user named that cannot be opened for reading: missing, unreadable, a directory, a
 * socket. A `usage` error (the command line names something that is not a readable file), whose
 * message is the path and the reason in words (`x.conll: cannot be read (permission denied)`).
 * `errno` is Node's code (`ENOENT`, `EACCES`, …). Errors while reading an opened file keep their
 * own type: a disk that fails mid-read is not a usage error.
 */
export class InputFileError extends LagrangeError {
  override readonly name = "InputFileError";
  constructor(
    readonly path: string,
    /** What is wrong, after the path: `no such file`, `cannot be read (permission denied)`, … */
    readonly reason: string,
    readonly errno: string | undefined,
    options?: ErrorOptions,
  ) {
    super("usage", `${path}: ${reason}`, options);
  }
}

/** The reason, in words, that a file could not be opened for reading (the unit of the messages). */
export function inputFileError(path: string, error: unknown): InputFileError {
  if (error instanceof InputFileError) return error;
  const errno = (error as { code?: unknown } | null)?.code;
  const code = typeof errno === "string" ? errno : undefined;
  return new InputFileError(path, reasonOf(code, error), code, { cause: error });
}

function reasonOf(code: string | undefined, error: unknown): string {
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "cannot be read (permission denied)";
    case "EISDIR":
      return "is a directory; expected a file";
    case "ENOTDIR":
      return "cannot be read (a part of the path is not a folder)";
    case "ELOOP":
      return "cannot be read (too many levels of symbolic links)";
    case "ENAMETOOLONG":
      return "cannot be read (the path is too long)";
    case "ENXIO":
      return "cannot be read (a socket, or a device that is not there)";
    case "ENODEV":
      return "a device; expected a regular file or a pipe";
    default:
      return `cannot be read (${errnoWords(error)})`;
  }
}

/**
 * Checks at once, before any work, that `path` names a file this process can read: it exists
 * (a missing folder on the way, or one that cannot be searched, is said as such), is not a
 * directory, and the permissions let it be read. Throws {@link InputFileError}. The check opens
 * nothing, so a FIFO is not consumed; as root, permissions do not apply (the kernel allows it).
 */
export function checkInputFile(path: string): void {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw inputFileError(path, error);
  }
  if (stats.isDirectory()) throw new InputFileError(path, reasonOf("EISDIR", null), "EISDIR");
  // A socket is left to the open: `/dev/stdin` may be one (a parent's socket pair), and is read.
  if (!readableBy(stats)) throw new InputFileError(path, reasonOf("EACCES", null), "EACCES");
}

/**
 * Whether the mode bits let this process read the file, as the kernel decides for `open`
 * (`access(2)` would ask for the real user, not the effective one). Root reads everything.
 */
function readableBy(stats: Stats): boolean {
  const uid = process.geteuid?.();
  if (uid === undefined || uid === 0) return true;
  if (stats.uid === uid) return (stats.mode & 0o400) !== 0;
  const groups = new Set([process.getegid?.(), ...(process.getgroups?.() ?? [])]);
  if (groups.has(stats.gid)) return (stats.mode & 0o040) !== 0;
  return (stats.mode & 0o004) !== 0;
}

/**
 * Whether an opened file is a device a named input may not be: a block device, or a character
 * device other than a terminal (typed into, and ends) and the null device (empty, as safe as an
 * empty file: `cmd < /dev/null`, as cron and nohup run commands, gives `--data -` nothing to
 * read). Any other may never end (`/dev/zero`). The one rule, for the readers and for the CLI's
 * check before a command starts.
 */
export function isRefusedDevice(stats: Stats, fd: number): boolean {
  if (stats.isBlockDevice()) return true;
  return stats.isCharacterDevice() && !isatty(fd) && !isNullDevice(stats);
}

function isNullDevice(stats: Stats): boolean {
  if (!stats.isCharacterDevice()) return false;
  try {
    return statSync("/dev/null").rdev === stats.rdev;
  } catch {
    return false;
  }
}

/** What an input is: a regular file, a pipe or FIFO, a terminal, or another device. */
export type InputKind = "file" | "pipe" | "terminal" | "device";

export interface OpenInputOptions {
  /** Stops the wait for data (a FIFO whose writer has not come yet) and the reading. */
  readonly signal?: AbortSignal;
  /** Bytes per chunk read from a regular file or a device (default 64 KiB). */
  readonly chunkBytes?: number;
  /**
   * What the file is, for a file a user named: a device other than a terminal (`/dev/zero`,
   * `/dev/sda`) is then refused (an {@link InputFileError}, `ENODEV`), and the kind's size cap
   * ({@link inputSizeCap}) applies unless `maxBytes` is given.
   */
  readonly kind?: InputSizeKind;
  /**
   * The most bytes to read: past it, reading stops with an {@link InputTooLargeError}
   * (`bad-input`) naming the file, before the bytes are held. A regular file is checked by its
   * size when opened; a pipe or a device (`/dev/zero` never ends) as it is read.
   */
  readonly maxBytes?: number;
}

/** An opened input: its chunks, read once, in order. */
export interface InputStream extends AsyncIterable<Uint8Array> {
  readonly path: string;
  readonly kind: InputKind;
  /** A regular file's size (for progress), else null: a pipe's length is known at its end. */
  readonly size: number | null;
  /** Bytes read so far. */
  readonly bytesRead: number;
  /** Stops reading and closes the input (also done at the end and on an error). */
  close(): void;
}

const DEFAULT_CHUNK_BYTES = 1 << 16;

/**
 * The one way the project opens a file a user named for reading: data, models, constraints,
 * predictions. Regular files are read with positioned reads; a FIFO, a pipe (`<(cat m)`, which
 * is `/dev/fd/63`) and a terminal are read through libuv's stream handles, to their end — the
 * open is non-blocking and the wait for a writer is on epoll, not in a thread, so the process
 * stays stoppable (a thread blocked in `open` keeps even `process.exit` from returning). Other
 * devices (`/dev/zero`) are read with plain non-blocking reads. `/dev/stdin` that is a socket
 * (a parent process's socket pair, which cannot be opened anew) is this process's standard
 * input. An open that fails throws {@link InputFileError}.
 */
export async function openInput(
  source: string | URL,
  options: OpenInputOptions = {},
): Promise<InputStream> {
  const path = typeof source === "string" ? source : fileURLToPath(source);
  const opened = await openDescriptor(path, options);
  const cap = capOf(options);
  if (opened !== "stdin" && opened.stats.isFile() && opened.stats.size > cap) {
    closeCallback(opened.fd, () => undefined);
    throw new InputTooLargeError(path, opened.stats.size, cap, options.kind);
  }
  const input = inputOf(path, opened, options);
  return Number.isFinite(cap) ? capped(input, cap, options.kind) : input;
}

/** The most bytes read from the input: `maxBytes`, else the kind's cap, else no bound. */
function capOf(options: OpenInputOptions): number {
  if (options.maxBytes !== undefined) return options.maxBytes;
  return options.kind === undefined ? Number.POSITIVE_INFINITY : inputSizeCap(options.kind);
}

/** An input that stops with an {@link InputTooLargeError} once more than `cap` bytes came. */
function capped(input: InputStream, cap: number, kind: InputSizeKind | undefined): InputStream {
  return {
    path: input.path,
    kind: input.kind,
    size: input.size,
    get bytesRead() {
      return input.bytesRead;
    },
    close: () => input.close(),
    async *[Symbol.asyncIterator]() {
      for await (const chunk of input) {
        if (input.bytesRead > cap) {
          throw new InputTooLargeError(input.path, input.size ?? null, cap, kind);
        }
        yield chunk;
      }
    },
  };
}

function inputOf(
  path: string,
  opened: Awaited<ReturnType<typeof openDescriptor>>,
  options: OpenInputOptions,
): InputStream {
  if (opened === "stdin") return streamInput(path, "pipe", process.stdin, options, false);
  const { fd, stats } = opened;
  if (stats.isFIFO()) {
    const pipe = new Socket({ fd, readable: true, writable: false });
    return streamInput(path, "pipe", pipe, options, true);
  }
  if (stats.isCharacterDevice() && isatty(fd)) {
    return streamInput(path, "terminal", new ReadStream(fd), options, true);
  }
  const kind: InputKind = stats.isFile() ? "file" : "device";
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  return descriptorInput(path, kind, fd, kind === "file" ? stats.size : null, chunkBytes, options);
}

/** Opens `path` without blocking (O_NONBLOCK: a FIFO with no writer opens at once) and stats it. */
async function openDescriptor(
  path: string,
  options: OpenInputOptions,
): Promise<{ readonly fd: number; readonly stats: Stats } | "stdin"> {
  options.signal?.throwIfAborted();
  let fd: number;
  try {
    fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    if ((error as { code?: string }).code === "ENXIO") {
      const descriptor = await descriptorBehind(path);
      if (descriptor?.own === true && descriptor.fd === 0) return "stdin";
    }
    throw inputFileError(path, error);
  }
  try {
    const stats = await fstatFd(fd);
    if (stats.isDirectory()) throw new InputFileError(path, reasonOf("EISDIR", null), "EISDIR");
    if (options.kind !== undefined && isRefusedDevice(stats, fd)) {
      throw new InputFileError(path, reasonOf("ENODEV", null), "ENODEV");
    }
    return { fd, stats };
  } catch (error) {
    closeCallback(fd, () => undefined);
    throw inputFileError(path, error);
  }
}

/** A FIFO, pipe or terminal: libuv's stream handle reads it as data comes, to its end. */
function streamInput(
  path: string,
  kind: InputKind,
  stream: NodeJS.ReadableStream & { destroy(error?: Error): unknown },
  options: OpenInputOptions,
  owned: boolean,
): InputStream {
  let bytesRead = 0;
  // Standard input is not this reader's to close: it stops reading it.
  const close = () => {
    if (owned) stream.destroy();
    else stream.pause();
  };
  return {
    path,
    kind,
    size: null,
    get bytesRead() {
      return bytesRead;
    },
    close,
    async *[Symbol.asyncIterator]() {
      const signal = options.signal;
      const stop = () => stream.destroy(signal?.reason as Error);
      signal?.addEventListener("abort", stop, { once: true });
      try {
        signal?.throwIfAborted();
        for await (const chunk of stream) {
          const bytes = chunk as Buffer;
          bytesRead += bytes.length;
          yield bytes;
        }
      } finally {
        signal?.removeEventListener("abort", stop);
        close();
      }
    },
  };
}

/**
 * A regular file or a device: reads of `chunkBytes` at the current position (a device has
 * none), each one awaited, the signal checked between them; a device with nothing to give yet
 * (EAGAIN: opened non-blocking) is read again shortly, so that no thread waits on it.
 */
function descriptorInput(
  path: string,
  kind: InputKind,
  fd: number,
  size: number | null,
  chunkBytes: number,
  options: OpenInputOptions,
): InputStream {
  let bytesRead = 0;
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    closeCallback(fd, () => undefined);
  };
  return {
    path,
    kind,
    size,
    get bytesRead() {
      return bytesRead;
    },
    close,
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          options.signal?.throwIfAborted();
          if (!open) return;
          const buffer = new Uint8Array(chunkBytes);
          let count: number;
          try {
            count = await readFd(fd, buffer, 0, buffer.length);
          } catch (error) {
            if ((error as { code?: string }).code !== "EAGAIN") throw error;
            await new Promise((done) => setTimeout(done, EAGAIN_RETRY_MS));
            continue;
          }
          if (count === 0) return;
          bytesRead += count;
          yield count === buffer.length ? buffer : buffer.subarray(0, count);
        }
      } finally {
        close();
      }
    },
  };
}

/** How to read a whole input: see {@link OpenInputOptions} (`kind` and `maxBytes` bound it). */
export type ReadInputOptions = OpenInputOptions;

/** Reads a whole input (see {@link openInput}): a pipe or a FIFO to its end, not its first buffer. */
export async function readInput(
  source: string | URL,
  options: ReadInputOptions = {},
): Promise<Uint8Array> {
  const path = typeof source === "string" ? source : fileURLToPath(source);
  const max = capOf(options);
  const tooLarge = (size: number | null) => new InputTooLargeError(path, size, max, options.kind);
  const opened = await openDescriptor(path, options);
  if (opened !== "stdin" && opened.stats.isFile()) {
    // A regular file: one buffer of its size, filled by a few large reads.
    const { fd, stats } = opened;
    try {
      if (stats.size > max) throw tooLarge(stats.size);
      return await readRegularFile(fd, stats.size, max, tooLarge, options.signal);
    } finally {
      closeCallback(fd, () => undefined);
    }
  }
  const input = inputOf(path, opened, options);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of input) {
      total += chunk.length;
      if (total > max) throw tooLarge(null);
      chunks.push(chunk);
    }
  } finally {
    input.close();
  }
  return joinChunks(chunks, total);
}

/** Large reads into one buffer of the file's size; a file that grew meanwhile is read to its end. */
async function readRegularFile(
  fd: number,
  size: number,
  max: number,
  tooLarge: (size: number | null) => Error,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const READ_BYTES = 1 << 24;
  let bytes = new Uint8Array(size);
  let length = 0;
  for (;;) {
    signal?.throwIfAborted();
    if (length === bytes.length) {
      // At the recorded size: one more read tells the end from growth (a file being appended to).
      const more = new Uint8Array(DEFAULT_CHUNK_BYTES);
      const count = await readFd(fd, more, 0, more.length);
      if (count === 0) return bytes;
      if (length + count > max) throw tooLarge(length + count);
      const grown = new Uint8Array(Math.max(bytes.length * 2, length + count));
      grown.set(bytes.subarray(0, length));
      grown.set(more.subarray(0, count), length);
      bytes = grown;
      length += count;
      continue;
    }
    const count = await readFd(fd, bytes, length, Math.min(READ_BYTES, bytes.length - length));
    if (count === 0) return bytes.subarray(0, length);
    length += count;
  }
}

function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
