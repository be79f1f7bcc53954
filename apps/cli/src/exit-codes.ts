import { isAbortError, LagrangeError, lagrangeErrorCode } from "@lagrange/core";
import { type StopSignal, signalExitCode } from "./interruption.js";

/** Exit codes scripts can rely on (listed by `--help`). */
export const ExitCode = {
  ok: 0,
  /** Something failed while running: an I/O error (disk full), training that made no progress, a bug. */
  failure: 1,
  /**
   * The command line is wrong: an unknown command, option, value or name; a file it names does not
   * exist; an output path cannot be written or is one of the inputs.
   */
  usage: 2,
  /** Input data, a model, a constraints file or a plug-in is malformed; the message names file:line. */
  badInput: 3,
  /** A dataset split is not reachable (absent from the mirror, offline with no copy). */
  unavailable: 4,
  /** Stopped by Ctrl-C (SIGINT); 143 for SIGTERM, 129 for SIGHUP. Partial output files are removed. */
  interrupted: signalExitCode("SIGINT"),
  terminated: signalExitCode("SIGTERM"),
  hungUp: signalExitCode("SIGHUP"),
} as const;

/** The table `--help` prints. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    success (also when the reader of standard output goes away, as with \`| head\`)
  1    failure while running: I/O error (disk full), training made no progress, internal error
  2    usage: unknown command, option, value or name; a named file that does not exist; an output
       path that cannot be written or is one of the inputs; Redis refused the password, ACL user
       or TLS certificate (lagrange queue: at once, never retried)
  3    malformed input: data, model, constraints file or plug-in (the message names file:line),
       or an input over its kind's size cap (LAGRANGE_MAX_INPUT raises it)
  4    a dataset split is not reachable (not in the mirror, offline)
  130  stopped by Ctrl-C (SIGINT); 143 by SIGTERM; 129 by SIGHUP; 131 by SIGQUIT (Ctrl-\\); 128+n
       by any other signal n that ends a process (no partial output file or temporary file is
       left, an existing output is kept; a command that has not stopped 0.5 s after the signal
       is killed)
  137  killed by SIGKILL (another process, or the system out of memory); 128+n: by signal n`;

/** A usage error of this command line (exit 2). */
export function usageError(message: string): LagrangeError {
  return new LagrangeError("usage", message);
}

/** A malformed input (exit 3). */
export function badInputError(message: string): LagrangeError {
  return new LagrangeError("bad-input", message);
}

/**
 * The exit code of a failure, from the error's `code` field (never its class name): a disk-full
 * write is a failure (1), not malformed input; an unreachable dataset is 4; a run stopped by a
 * signal exits 128 + the signal's number.
 */
export function exitCodeOf(error: unknown, signal?: StopSignal): number {
  switch (lagrangeErrorCode(error)) {
    case "usage":
      return ExitCode.usage;
    case "bad-input":
    case "invalid-problem":
      return ExitCode.badInput;
    case "unavailable":
      return ExitCode.unavailable;
    default:
      if (signal !== undefined && isAbortError(error)) return signalExitCode(signal);
      return ExitCode.failure;
  }
}
