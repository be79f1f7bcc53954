import { close as closeCallback, constants } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import { Socket } from "node:net";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { isatty, WriteStream } from "node:tty";
import { descriptorOfLink, MAX_LINKS } from "./descriptor-link.js";
import { EAGAIN_RETRY_MS, fstatFd, openFd, writeFd } from "./descriptors.js";

/**
 * Where the bytes go: a regular file (or nothing yet) at `target`, replaced atomically; or the
 * destination itself, written in place: a FIFO, a device, or a descriptor link (`/dev/stdout`).
 * `ownDescriptor`: the descriptor link names one of this process's own descriptors (its number).
 */
export type Destination =
  | { readonly kind: "replace"; readonly target: string }
  | {
      readonly kind: "in-place";
      readonly type: "fifo" | "device" | "descriptor";
      readonly ownDescriptor?: number;
    };

/**
 * Follows `path`'s symbolic links one at a time (each folder through its real path) to what it
 * finally names. Links are followed by hand, not with `realpath`, so that a dangling link yields
 * the path it names and a descriptor link (`/proc/self/fd/1`, whose "target" is `pipe:[…]`) is
 * recognised as one.
 */
export async function resolveDestination(path: string): Promise<Destination> {
  // Never normalised by hand: `x/../f` names f only if x exists (and `link/../f` is beside the
  // link's target), as the kernel reads it; resolving `..` lexically could name an input.
  let current = path;
  for (let links = 0; links <= MAX_LINKS; ) {
    // A missing or unreadable folder fails here, saying why.
    const folder = await realpath(dirname(current));
    current = join(folder, basename(current));
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(current);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT")
        return { kind: "replace", target: current };
      throw error;
    }
    if (stats.isSymbolicLink()) {
      const descriptor = descriptorOfLink(current);
      if (descriptor !== undefined) {
        return descriptor.own
          ? { kind: "in-place", type: "descriptor", ownDescriptor: descriptor.fd }
          : { kind: "in-place", type: "descriptor" };
      }
      const target = await readlink(current);
      current = isAbsolute(target) ? target : `${folder}${sep}${target}`;
      links++;
      continue;
    }
    if (stats.isFile()) return { kind: "replace", target: current };
    if (stats.isDirectory()) throw codedError("EISDIR", "is a directory; expected a file path");
    if (stats.isSocket()) throw codedError("ENXIO", "is a socket; expected a file path");
    return { kind: "in-place", type: stats.isFIFO() ? "fifo" : "device" };
  }
  throw codedError("ELOOP", "too many levels of symbolic links");
}

export function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** How long to wait between two tries to open a FIFO that has no reader yet. */
const FIFO_READER_POLL_MS = 50;

/** Where in-place bytes go: a stream handle (FIFO, pipe, terminal) or a plain descriptor. */
export interface InPlaceSink {
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  destroy(): void;
}

/**
 * Opens a FIFO for writing without blocking: `O_NONBLOCK` fails with ENXIO while no reader has it
 * open, so the open is tried again every {@link FIFO_READER_POLL_MS} ms — the wait `cat > fifo`
 * makes, but one a signal ends.
 */
async function openFifoForWriting(path: string, signal: AbortSignal | undefined): Promise<number> {
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await openFd(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENXIO") throw error;
    }
    await delay(FIFO_READER_POLL_MS, signal);
  }
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done, fail) => {
    const aborted = () => {
      clearTimeout(timer);
      fail(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", aborted);
      done();
    }, ms);
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

export async function openSink(
  path: string,
  destination: Extract<Destination, { kind: "in-place" }>,
  signal: AbortSignal | undefined,
): Promise<InPlaceSink> {
  if (destination.type === "fifo") return sinkOf(await openFifoForWriting(path, signal));
  if (destination.type === "device") {
    // O_NONBLOCK: opening a device (a serial line) must not wait; its writes retry on EAGAIN.
    return sinkOf(
      await openFd(path, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK),
    );
  }
  const own = destination.ownDescriptor;
  if (own === 1) return standardStreamSink(process.stdout);
  if (own === 2) return standardStreamSink(process.stderr);
  let fd: number;
  try {
    // O_NONBLOCK: a pipe behind the link must not block the open (nor its writes: see sinkOf).
    fd = await openFd(
      path,
      constants.O_WRONLY | constants.O_NOCTTY | constants.O_APPEND | constants.O_NONBLOCK,
    );
  } catch (error) {
    if ((error as { code?: string }).code !== "ENXIO" || own === undefined) throw error;
    return descriptorSink(own, { owned: false });
  }
  return sinkOf(fd);
}

/** Standard output or error as a destination: written in order with the rest, never closed. */
function standardStreamSink(stream: NodeJS.WriteStream): InPlaceSink {
  let last: Promise<void> = Promise.resolve();
  return {
    write: (bytes) => {
      last = new Promise((done, fail) =>
        stream.write(bytes, (error) => (error ? fail(error) : done())),
      );
      return last;
    },
    close: () => last,
    destroy: () => undefined,
  };
}

async function sinkOf(fd: number): Promise<InPlaceSink> {
  const stats = await fstatFd(fd);
  if (stats.isFIFO()) return streamSink(new Socket({ fd, readable: false, writable: true }));
  if (isatty(fd)) return streamSink(new WriteStream(fd));
  return descriptorSink(fd, { owned: true });
}

function streamSink(stream: Socket): InPlaceSink {
  let failure: Error | undefined;
  // A reader that went away (EPIPE) fails the next write or the close; never an unhandled event.
  stream.on("error", (error) => {
    failure ??= error;
  });
  return {
    write: (bytes) =>
      new Promise((done, fail) => {
        if (failure !== undefined) return fail(failure);
        stream.write(bytes, (error) => (error ? fail(error) : done()));
      }),
    close: () =>
      new Promise((done, fail) => {
        if (failure !== undefined) return fail(failure);
        stream.end(() => (failure === undefined ? done() : fail(failure)));
        stream.once("error", fail);
      }),
    destroy: () => stream.destroy(),
  };
}

/**
 * A device or a regular file behind a descriptor link: plain writes, no fsync, closed at the end
 * when this writer opened it (`owned`).
 */
function descriptorSink(fd: number, { owned }: { readonly owned: boolean }): InPlaceSink {
  let open = owned;
  const close = () => {
    if (!open) return Promise.resolve();
    open = false;
    return new Promise<void>((done, fail) => closeCallback(fd, (e) => (e ? fail(e) : done())));
  };
  const writeSome = async (bytes: Uint8Array, offset: number): Promise<number> => {
    for (;;) {
      try {
        return await writeFd(fd, bytes, offset);
      } catch (error) {
        // A device opened without blocking that cannot take more yet: try again shortly.
        if ((error as { code?: string }).code !== "EAGAIN") throw error;
        await delay(EAGAIN_RETRY_MS, undefined);
      }
    }
  };
  return {
    write: (bytes) => writeAll(bytes, writeSome),
    close,
    destroy: () => void close().catch(() => undefined),
  };
}

/**
 * Writes every byte through `writeSome` (which writes from `offset` on and says how many it
 * wrote): a write may write fewer bytes than asked (a nearly full disk writes what fits and
 * reports success), so the rest is written again, which then fails with the real reason (ENOSPC).
 * Ignoring the count would commit a truncated file.
 */
export async function writeAll(
  bytes: Uint8Array,
  writeSome: (bytes: Uint8Array, offset: number) => Promise<number>,
): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const written = await writeSome(bytes, offset);
    if (written <= 0) throw new Error("the write made no progress");
    offset += written;
  }
}
