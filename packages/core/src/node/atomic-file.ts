import { randomBytes } from "node:crypto";
import { type FileHandle, lstat, open, readdir, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { throwIfAborted } from "../errors.js";
import { errnoWords } from "./descriptors.js";
import {
  codedError,
  type Destination,
  type InPlaceSink,
  openSink,
  resolveDestination,
  writeAll,
} from "./file-sinks.js";

/** Why an atomic write failed, naming the file; `code` is Node's (`ENOSPC`, `EACCES`, …). */
export class FileWriteError extends Error {
  override readonly name = "FileWriteError";
  readonly code: string | undefined;
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    // Node names the temporary file ("…, open '/dir/.x.123.tmp'"): the user knows only `path`.
    super(`cannot write ${path}: ${errnoWords(cause)}`, { cause });
    this.code = (cause as { code?: string } | null)?.code;
  }
}

/**
 * A file written beside its destination and renamed over it only on `commit`, after an fsync, so a
 * reader never sees a half-written file and a crash, an error or `abort` leaves the previous file
 * (if any) untouched. Writes are buffered (64 KiB) and awaited, which gives a producer
 * back-pressure for free.
 *
 * Only a regular file (or a path where nothing is) is replaced that way. A symbolic link is
 * followed first: the file it finally names is the one replaced (or created, when the link
 * dangles and the folder it points into exists), and the link stays a link. Anything else — a
 * character or block device (`/dev/null`), a FIFO, a terminal, a descriptor link (`/dev/stdout`,
 * `/dev/fd/N`, `/proc/self/fd/N`) — is written in place, as the shell's `>` would: opened for
 * writing, with no temporary file, no rename and no fsync, so that a device node is never
 * replaced by a file. A FIFO with no reader is waited for without blocking a thread (the process
 * stays stoppable; `signal` ends the wait). A directory or a socket is refused.
 */
export interface AtomicFile {
  /** The destination as the caller named it (messages). */
  readonly path: string;
  /**
   * The file being written until `commit` renames it over `path`: a process that must exit at once
   * (a second Ctrl-C) removes it synchronously, since no `abort` will run. Null for a destination
   * written in place (a device, a FIFO, `/dev/stdout`), where there is nothing to remove.
   */
  readonly temporaryPath: string | null;
  write(chunk: string | Uint8Array): Promise<void>;
  /** Flush, fsync, rename over `path`, fsync the folder (in place: flush and close). */
  commit(): Promise<void>;
  /**
   * Drop the temporary file; `path` is left as it was. Safe to call after a failure. In place, the
   * bytes already written cannot be taken back: the destination is closed.
   */
  abort(): Promise<void>;
}

export interface OpenAtomicFileOptions {
  /**
   * Ends the wait for a FIFO's reader (the only wait before the first write), and once aborted
   * makes `commit` abort instead of replacing the destination (checked right before the rename).
   */
  readonly signal?: AbortSignal;
  /**
   * Called with the temporary file's path just before it is created, so that a watcher (the
   * CLI's supervisor, which removes the files of a process it had to kill) knows of it even if
   * this process is killed the moment the file exists.
   */
  readonly beforeTemporaryFile?: (temporaryPath: string) => void;
  /**
   * Replace a destination that is read-only (no write bit in its mode: a user's `chmod a-w`
   * protects it, and root would otherwise replace it silently). By default such a file is refused
   * with a {@link FileWriteError} whose code is `EROFILE`.
   */
  readonly replaceReadOnly?: boolean;
}

/** The code of the {@link FileWriteError} that refuses to replace a read-only file. */
export const READ_ONLY_FILE = "EROFILE";

const BUFFER_BYTES = 1 << 16;
const encoder = new TextEncoder();

/** The one atomic writer of the project: model files, constraints files, corpora, reports, downloads. */
export async function openAtomicFile(
  path: string,
  options: OpenAtomicFileOptions = {},
): Promise<AtomicFile> {
  options.signal?.throwIfAborted();
  let destination: Destination;
  try {
    destination = await resolveDestination(path);
  } catch (error) {
    throw new FileWriteError(path, error);
  }
  if (destination.kind === "in-place") return openInPlace(path, destination, options.signal);
  const target = destination.target;
  const replaced = await existingFile(target);
  if (replaced !== null && (replaced.mode & 0o222) === 0 && options.replaceReadOnly !== true) {
    throw new FileWriteError(path, codedError(READ_ONLY_FILE, "the file is read-only"));
  }
  await removeStaleTemporaryFiles(target);
  // Short whatever the destination's name: a 250-byte name plus a suffix would pass NAME_MAX.
  const temporary = join(
    dirname(target),
    `${TEMPORARY_PREFIX}${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  let handle: FileHandle | null;
  try {
    options.beforeTemporaryFile?.(temporary);
    // A new file gets the umask's mode; one that replaces a file is created owner-only and given
    // that file's mode once chown'd (a 0600 file's bytes are never readable by others).
    handle = await open(temporary, "wx", replaced === null ? 0o666 : 0o600);
    if (replaced !== null) await keepModeAndOwner(handle, replaced);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw new FileWriteError(path, error);
  }
  const writeSome = async (bytes: Uint8Array, offset: number) =>
    (await handle!.write(bytes, offset, bytes.length - offset)).bytesWritten;
  const discard = async () => {
    if (handle !== null) {
      await handle.close().catch(() => undefined);
      handle = null;
    }
    await unlink(temporary).catch(() => undefined);
  };
  return bufferedFile(path, temporary, (bytes) => writeAll(bytes, writeSome), {
    async finish(fail) {
      try {
        await handle!.sync();
        await handle!.close();
        handle = null;
      } catch (error) {
        await fail(error);
      }
      // The last moment a stop can still keep the previous file: a signal handled while the bytes
      // were flushed and synced (its handler runs only when those writes let the loop turn).
      if (options.signal?.aborted === true) {
        await discard();
        throwIfAborted(options.signal);
      }
      try {
        await rename(temporary, target);
      } catch (error) {
        await fail(error);
      }
      await syncFolder(dirname(target));
    },
    discard,
  });
}

/** How a {@link bufferedFile} ends: made the destination's, or dropped. */
interface FileEnding {
  /**
   * After the last bytes were flushed: what makes them the destination's (fsync and rename, or a
   * close). A failure goes through `fail`, which discards the file and throws a FileWriteError.
   */
  finish(fail: (error: unknown) => Promise<never>): Promise<void>;
  /** Drops what was written, as far as it can (never throws). */
  discard(): Promise<void>;
}

/**
 * The {@link AtomicFile} both kinds of destination share: buffered writes, one commit or abort,
 * and a failed write or commit that discards the file before it throws a FileWriteError.
 */
function bufferedFile(
  path: string,
  temporaryPath: string | null,
  sink: (bytes: Uint8Array) => Promise<void>,
  ending: FileEnding,
): AtomicFile {
  const buffer = new WriteBuffer(sink);
  let done = false;
  const fail = async (error: unknown): Promise<never> => {
    await file.abort();
    throw error instanceof FileWriteError ? error : new FileWriteError(path, error);
  };
  const file: AtomicFile = {
    path,
    temporaryPath,
    async write(chunk) {
      if (done) throw alreadyClosed(path);
      await buffer.add(chunk).catch(fail);
    },
    async commit() {
      if (done) throw alreadyClosed(path);
      done = true;
      try {
        await buffer.flush();
      } catch (error) {
        await fail(error);
      }
      await ending.finish(fail);
    },
    async abort() {
      done = true;
      buffer.drop();
      await ending.discard();
    },
  };
  return file;
}

/** Chunks gathered up to {@link BUFFER_BYTES} and then written with one call. */
class WriteBuffer {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  constructor(private readonly sink: (bytes: Uint8Array) => Promise<void>) {}
  async add(chunk: string | Uint8Array): Promise<void> {
    // Bytes are copied: a caller may reuse its buffer while this one waits to be flushed.
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk.slice();
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= BUFFER_BYTES) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const joined =
      this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.drop();
    await this.sink(joined);
  }
  drop(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}

function alreadyClosed(path: string): FileWriteError {
  return new FileWriteError(path, new Error("the file was already committed or aborted"));
}

/**
 * A destination written in place. FIFOs and terminals are written through libuv's stream handles
 * (epoll), not the thread pool: a reader that stops reading must not leave a thread blocked in
 * `write`, which would keep even `process.exit` from returning. A device is opened as it is and
 * written with plain writes. A descriptor link is this process's standard output or error when
 * it names one (`/dev/stdout` is then `-`: the same stream, in order with what else is written
 * there); else it is opened anew, `O_APPEND` so that a regular file behind it (`>> log`) is
 * written at its end as the descriptor would be, never truncated nor replaced. A descriptor that
 * cannot be opened anew (a socket, ENXIO) is written as it is when it is this process's own.
 */
async function openInPlace(
  path: string,
  destination: Extract<Destination, { kind: "in-place" }>,
  signal: AbortSignal | undefined,
): Promise<AtomicFile> {
  let sink: InPlaceSink;
  try {
    sink = await openSink(path, destination, signal);
  } catch (error) {
    // A wait ended by the signal is the caller's stop, not a write failure.
    if (signal?.aborted === true) throw error;
    throw error instanceof FileWriteError ? error : new FileWriteError(path, error);
  }
  return bufferedFile(path, null, (bytes) => sink.write(bytes), {
    async finish(fail) {
      try {
        await sink.close();
      } catch (error) {
        await fail(error);
      }
    },
    async discard() {
      sink.destroy();
    },
  });
}

/**
 * Temporary files this writer left in `target`'s folder in processes that no longer run (killed
 * with SIGKILL, or by a power cut: nothing could remove them) are removed when an output is next
 * written there: `.lgr-<pid>.<hex>.tmp`, and the older `.<target's name>.<pid>.<hex>.tmp` of
 * `target` itself. A file is stale when the process its name records is gone; the writer's own
 * process and any live one (another user's included) keep theirs. A process in another PID
 * namespace writing the same folder (two containers sharing a volume) cannot be told from a dead
 * one.
 */
async function removeStaleTemporaryFiles(target: string): Promise<void> {
  const folder = dirname(target);
  const prefixes = [TEMPORARY_PREFIX, `.${basename(target)}.`];
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const prefix = prefixes.find((p) => name.startsWith(p));
    if (prefix === undefined) continue;
    const match = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length));
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    const path = join(folder, name);
    try {
      if ((await lstat(path)).isFile()) await unlink(path);
    } catch {
      // Removed meanwhile, or not ours to remove: it stays.
    }
  }
}

/** Temporary files are `.lgr-<pid>.<12 hex>.tmp` beside the destination, whatever its name. */
const TEMPORARY_PREFIX = ".lgr-";

/** The regular file about to be replaced (its mode and owner), or null when there is none. */
async function existingFile(
  target: string,
): Promise<{ readonly mode: number; readonly uid: number; readonly gid: number } | null> {
  try {
    const stats = await stat(target);
    return stats.isFile() ? { mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid } : null;
  } catch {
    return null;
  }
}

/**
 * Gives the new file the mode and owner of the one it replaces, so that replacing a 0600 model
 * does not publish it as 0644 and root writing a user's file leaves it the user's. Without a
 * owner this process may not give (a user replacing a file of another user's, in a folder both
 * may write) stays its own.
 */
async function keepModeAndOwner(
  handle: FileHandle,
  replaced: { readonly mode: number; readonly uid: number; readonly gid: number },
): Promise<void> {
  try {
    await handle.chown(replaced.uid, replaced.gid);
  } catch (error) {
    if ((error as { code?: string }).code !== "EPERM") throw error;
  }
  await handle.chmod(replaced.mode);
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** The rename is durable once the folder's entry is on disk (best effort: not every OS allows it). */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, "r");
    await handle.sync().finally(() => handle.close());
  } catch {
    // A folder that cannot be opened or synced (Windows, some file systems): the file is renamed.
  }
}

/** Writes `data` (bytes, text, or chunks of either) to `path` atomically; see {@link openAtomicFile}. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  options: Pick<OpenAtomicFileOptions, "signal" | "replaceReadOnly"> = {},
): Promise<void> {
  const file = await openAtomicFile(path, options);
  try {
    if (typeof data === "string" || data instanceof Uint8Array) {
      await file.write(data);
    } else {
      for await (const chunk of data) {
        options.signal?.throwIfAborted();
        await file.write(chunk);
      }
    }
    await file.commit();
  } catch (error) {
    await file.abort();
    throw error;
  }
}
