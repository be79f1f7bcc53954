/** Exit codes scripts can rely on. */
export const ExitCode = {
  ok: 0,
  /** Something failed while running (I/O, a bug, an aborted run). */
  failure: 1,
  /** The command line was wrong (unknown option, missing argument). */
  usage: 2,
  /** Input data or a model file is malformed; the message names file and line. */
  badInput: 3,
  /** A dataset split is not reachable (absent from the mirror, offline with no copy). */
  unavailable: 4,
} as const;

/** An error the CLI reports in one line with a chosen exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failure,
  ) {
    super(message);
  }
}
