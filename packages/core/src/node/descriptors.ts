/**
 * Node's descriptor calls as promises, for the readers and writers of this folder (not exported
 * from the package). The callback API, not `fs/promises`' FileHandle: a descriptor opened
 * non-blocking (a FIFO, a device) is handed on to libuv's stream handles as a number.
 */
import {
  fstat as fstatCallback,
  open as openCallback,
  read as readCallback,
  type Stats,
  write as writeCallback,
} from "node:fs";

/** How long to wait before a device opened non-blocking is read or written again (EAGAIN). */
export const EAGAIN_RETRY_MS = 10;

export function openFd(path: string, flags: number): Promise<number> {
  return new Promise((done, fail) => {
    openCallback(path, flags, 0o666, (error, fd) => (error === null ? done(fd) : fail(error)));
  });
}

export function fstatFd(fd: number): Promise<Stats> {
  return new Promise((done, fail) =>
    fstatCallback(fd, (error, stats) => (error === null ? done(stats) : fail(error))),
  );
}

/** Reads at the descriptor's position (a device has none) into `buffer`; the count read. */
export function readFd(
  fd: number,
  buffer: Uint8Array,
  offset: number,
  length: number,
): Promise<number> {
  return new Promise((done, fail) =>
    readCallback(fd, buffer, offset, length, null, (error, count) =>
      error === null ? done(count) : fail(error),
    ),
  );
}

/** Writes `bytes` from `offset` to their end at the descriptor's position; the count written. */
export function writeFd(fd: number, bytes: Uint8Array, offset: number): Promise<number> {
  return new Promise((done, fail) =>
    writeCallback(fd, bytes, offset, bytes.length - offset, null, (error, written) =>
      error === null ? done(written) : fail(error),
    ),
  );
}

/**
 * The reason in a Node error's message, in words: `EIO: i/o error, open '/x'` → `i/o error`.
 * The path is dropped: it may be a temporary file the user never named.
 */
export function errnoWords(error: unknown): string {
  return (error instanceof Error ? error.message : String(error))
    .replace(/, \w+(?: '[^']*')?$/, "")
    .replace(/^E[A-Z]+: /, "");
}
