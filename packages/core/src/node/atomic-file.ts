import { randomBytes } from "node:crypto";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Why an atomic write failed, naming the file; `code` is Node's (`ENOSPC`, `EACCES`, …). */
export class FileWriteError extends Error {
  override readonly name = "FileWriteError";
  readonly code: string | undefined;
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    // Node names the temporary file ("…, open '/dir/.x.123.tmp'"): the user knows only `path`.
    const reason = (cause instanceof Error ? cause.message : String(cause))
      .replace(/, \w+(?: '[^']*')?$/, "")
      .replace(/^E[A-Z]+: /, "");
    super(`cannot write ${path}: ${reason}`, { cause });
    this.code = (cause as { code?: string } | null)?.code;
  }
}

/**
 * A file written beside its destination and renamed over it only on `commit`, after an fsync, so a
 * reader never sees a half-written file and a crash, an error or `abort` leaves the previous file
 * (if any) untouched. Writes are buffered (64 KiB) and awaited, which gives a producer
 * back-pressure for free.
 */
export interface AtomicFile {
  readonly path: string;
  /**
   * The file being written until `commit` renames it over `path`: a process that must exit at once
   * (a second Ctrl-C) removes it synchronously, since no `abort` will run.
   */
  readonly temporaryPath: string;
  write(chunk: string | Uint8Array): Promise<void>;
  /** Flush, fsync, rename over `path`, fsync the folder. */
  commit(): Promise<void>;
  /** Drop the temporary file; `path` is left as it was. Safe to call after a failure. */
  abort(): Promise<void>;
}

const BUFFER_BYTES = 1 << 16;
const encoder = new TextEncoder();

/** The one atomic writer of the project: model files, constraints files, corpora, reports, downloads. */
export async function openAtomicFile(path: string): Promise<AtomicFile> {
  const temporary = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  let handle: FileHandle | null;
  try {
    handle = await open(temporary, "wx");
  } catch (error) {
    throw new FileWriteError(path, error);
  }
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let done = false;
  const flush = async () => {
    if (pendingBytes === 0 || handle === null) return;
    const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await writeAll(handle, joined);
  };
  const fail = async (error: unknown): Promise<never> => {
    await file.abort();
    throw error instanceof FileWriteError ? error : new FileWriteError(path, error);
  };
  const file: AtomicFile = {
    path,
    temporaryPath: temporary,
    async write(chunk) {
      if (done)
        throw new FileWriteError(path, new Error("the file was already committed or aborted"));
      // Bytes are copied: a caller may reuse its buffer while this one waits to be flushed.
      const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk.slice();
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= BUFFER_BYTES) await flush().catch(fail);
    },
    async commit() {
      if (done)
        throw new FileWriteError(path, new Error("the file was already committed or aborted"));
      done = true;
      try {
        await flush();
        await handle!.sync();
        await handle!.close();
        handle = null;
        await rename(temporary, path);
      } catch (error) {
        await fail(error);
      }
      await syncFolder(dirname(path));
    },
    async abort() {
      done = true;
      pending = [];
      if (handle !== null) {
        await handle.close().catch(() => undefined);
        handle = null;
      }
      await unlink(temporary).catch(() => undefined);
    },
  };
  return file;
}

/**
 * Writes every byte: a write may write fewer bytes than asked (a nearly full disk writes what fits
 * and reports success), so the rest is written again, which then fails with the real reason
 * (ENOSPC). Ignoring the count would commit a truncated file.
 */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    if (bytesWritten <= 0) throw new Error("the write made no progress");
    offset += bytesWritten;
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
  options: { readonly signal?: AbortSignal } = {},
): Promise<void> {
  options.signal?.throwIfAborted();
  const file = await openAtomicFile(path);
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
