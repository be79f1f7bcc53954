import { LagrangeError, lagrangeErrorCode } from "@lagrange/core";

/** Exit codes scripts can rely on. */
export const ExitCode = {
  ok: 0,
  /** Something failed while running (I/O, a bug, a cancelled run). */
  failure: 1,
  /** The command line was wrong (unknown option, decoder or name; a missing argument). */
  usage: 2,
  /** Input data, a model, a constraints file or a plug-in is malformed; the message names it. */
  badInput: 3,
  /** A dataset split is not reachable (absent from the mirror, offline with no copy). */
  unavailable: 4,
} as const;

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
 * write is a failure (1), not malformed input; an unreachable dataset is 4.
 */
export function exitCodeOf(error: unknown): number {
  switch (lagrangeErrorCode(error)) {
    case "usage":
      return ExitCode.usage;
    case "bad-input":
    case "invalid-problem":
      return ExitCode.badInput;
    case "unavailable":
      return ExitCode.unavailable;
    default:
      return ExitCode.failure;
  }
}
