import { existsSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { throwIfAborted } from "@lagrange/core";
import { type AtomicFile, openAtomicFile } from "@lagrange/core/node";
import { usageError } from "./exit-codes.js";
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
   * What the command reads, as given (paths or registry names; undefined entries are skipped): an
   * output path that is one of them is refused, since writing it would destroy the input.
   */
  readonly inputs: readonly (string | undefined)[];
  /**
   * The command's stop signal (Ctrl-C, SIGTERM, SIGHUP): once it has fired, the output is aborted
   * instead of committed, so a command stopped after its work (during the last iteration, while
   * the model is serialised) never replaces an existing file.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The one output path handler of the CLI. Called before any work, so that a path that cannot be
 * written (missing folder, read-only place, a directory) or that is one of the inputs stops the
 * command at once as a usage error (exit 2) rather than after an hour of training. The file is a
 * temporary one beside the target until `close` renames it over the target; `abort`, a failure
 * and Ctrl-C remove it. A device, a FIFO or `/dev/stdout` is written in place, never replaced,
 * and a symbolic link's target is written, not the link (see core's `openAtomicFile`).
 */
async function openOutput(path: string | undefined, options: OutputOptions): Promise<Output> {
  if (path === undefined || path === "-") return standardOutput();
  refuseInputs(path, options);
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
      beforeTemporaryFile: (temporaryPath) => {
        forget = trackTemporaryFile(temporaryPath);
      },
    });
  } catch (error) {
    forget();
    if (options.signal?.aborted === true) throw error;
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

function refuseInputs(path: string, options: OutputOptions): void {
  const target = identity(path);
  for (const input of options.inputs) {
    if (input === undefined || input === "-") continue;
    if (identity(input) === target) {
      throw usageError(
        `${options.option} ${path} is also an input of this command; writing it would destroy it: choose another path`,
      );
    }
  }
}

/** One string per file: the real path of an existing file (links resolved), else the absolute one. */
function identity(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
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

/**
 * One output line per token: the input's columns and the predicted label last (with gold, gold is
 * second-to-last as conlleval expects). The one CoNLL writer, shared with the stream and the queue,
 * so that their outputs are byte-identical.
 */
export { conllRecord as conllLines } from "@lagrange/scale";
