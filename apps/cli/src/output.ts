import { existsSync, statSync } from "node:fs";
import { throwIfAborted } from "@lagrange/core";
import {
  type AtomicFile,
  FileWriteError,
  openAtomicFile,
  READ_ONLY_FILE,
} from "@lagrange/core/node";
import { usageError } from "./exit-codes.js";
import { commandFiles, FORCE_FLAG } from "./files-declared.js";
import { trackTemporaryFile } from "./interruption.js";

/** Where results go: standard output, or a file written atomically (nothing partial on failure). */
export interface Output {
  write(data: string | Uint8Array): Promise<void>;
  /** Commits the file (standard output: nothing to do). */
  close(): Promise<void>;
  /** Drops a partial file; safe after `close` and after a failure. */
  abort(): Promise<void>;
}

export interface OutputOptions {
  /** The option that names the path, for messages (`--out`). */
  readonly option: string;
  /**
   * The command's stop signal (Ctrl-C, SIGTERM, SIGHUP): once it has fired, the output is aborted
   * instead of committed, so a command stopped after its work (during the last iteration, while
   * the model is serialised) never replaces an existing file.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The one output path handler of the CLI. Called before any work, so that a path that cannot be
 * written (missing folder, read-only place, a directory, a read-only file without `--force`)
 * stops the command at once as a usage error (exit 2) rather than after an hour of training (an
 * output that is one of the inputs was refused before the command started:
 * {@link refuseOutputsThatAreInputs}).
 * Replacing a file keeps its mode and owner (core's `openAtomicFile`). The file is a
 * temporary one beside the target until `close` renames it over the target; `abort`, a failure
 * and Ctrl-C remove it. A device, a FIFO or `/dev/stdout` is written in place, never replaced,
 * and a symbolic link's target is written, not the link (see core's `openAtomicFile`).
 */
async function openOutput(path: string | undefined, options: OutputOptions): Promise<Output> {
  if (path === undefined || path === "-") return standardOutput();
  const files = commandFiles();
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw usageError(`${options.option} ${path}: is a directory; expected a file path`);
  }
  let file: AtomicFile;
  // Registered before the file exists: a kill right after its creation still leaves nothing. A
  // device, a FIFO or /dev/stdout is written in place: no temporary file to register.
  let forget: () => void = () => undefined;
  try {
    // The signal ends the wait for a FIFO's reader (the only wait before the first write).
    file = await openAtomicFile(path, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      replaceReadOnly: files.force,
      beforeTemporaryFile: (temporaryPath) => {
        forget = trackTemporaryFile(temporaryPath);
      },
    });
  } catch (error) {
    forget();
    if (options.signal?.aborted === true) throw error;
    if (error instanceof FileWriteError && error.code === READ_ONLY_FILE) {
      throw usageError(
        `${options.option} ${path}: is read-only; ${FORCE_FLAG} replaces it (keeping its mode)`,
      );
    }
    throw usageError(`${options.option} ${path}: cannot be written (${reason(error)})`);
  }
  return {
    write: (data) => file.write(data),
    close: async () => {
      try {
        await file.commit();
      } finally {
        forget();
      }
    },
    abort: async () => {
      await file.abort();
      forget();
    },
  };
}

/**
 * Opens the output (checks first), lets `produce` write it, and commits it; any failure, Ctrl-C
 * included, aborts it so that no partial file is left and a previous file stays as it was.
 */
export async function writeOutput<T>(
  path: string | undefined,
  options: OutputOptions,
  produce: (output: Output) => Promise<T>,
): Promise<T> {
  const output = await openOutput(path, options);
  try {
    const result = await produce(output);
    throwIfAborted(options.signal);
    await output.close();
    return result;
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/**
 * The output rule's first half, run before every command (the program's `preAction` hook, after
 * {@link recordCommandFiles}): an output that is one of the command's inputs — every input its
 * definition declares (files-declared.ts), compared by device and inode after symbolic links, so a
 * hard link, a link or `./d/../x` for `x` all count — is refused as a usage error before any
 * work, since writing it would destroy the input.
 */
export function refuseOutputsThatAreInputs(): void {
  const { inputs, outputs } = commandFiles();
  for (const output of outputs) {
    // A terminal, a FIFO or a device is written in place and destroys nothing (`--data
    // /dev/stdin --out /dev/stdout` on one terminal is fine); a file or a folder is compared.
    const target = identity(output.path, true);
    if (target === undefined) continue;
    for (const input of inputs) {
      if (identity(input.path) === target) {
        throw usageError(
          `${output.flag} ${output.path} is also an input of this command (${input.flag} ${input.path}); writing it would destroy it: choose another path`,
        );
      }
    }
  }
}

/**
 * A file's device and inode (links followed), or undefined where there is no file (or, with
 * `replacedOnly`, nothing an output would replace: not a file or a folder).
 */
function identity(path: string, replacedOnly = false): string | undefined {
  try {
    const stats = statSync(path);
    if (replacedOnly && !stats.isFile() && !stats.isDirectory()) return undefined;
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // FileWriteError's "cannot write X: ENOENT: no such file or directory" → the errno's words.
  return message.replace(/^cannot write .*?: /, "").replace(/^[A-Z]+: /, "");
}

function standardOutput(): Output {
  return {
    write: (data) =>
      new Promise<void>((done, fail) => {
        if (process.stdout.write(data)) return done();
        // Back-pressure: wait for the drain, and drop both listeners whichever comes first.
        const drained = () => {
          process.stdout.off("error", failed);
          done();
        };
        const failed = (error: Error) => {
          process.stdout.off("drain", drained);
          fail(error);
        };
        process.stdout.once("drain", drained).once("error", failed);
      }),
    close: async () => {},
    abort: async () => {},
  };
}
