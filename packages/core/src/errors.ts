/**
 * What kind of failure an error is, for callers that map failures to outcomes (the CLI's exit
 * codes) without matching class names:
 * - `invalid-problem`: a problem, option or argument given to a library function is malformed;
 * - `bad-input`: a file or text the user supplied is malformed (data, model, constraints, template);
 * - `unavailable`: a dataset or resource cannot be reached (absent, offline, checksum mismatch);
 * - `usage`: an unknown name (decoder, slave, preset, scheme) or a combination that cannot work;
 * - `aborted`: cancelled through an AbortSignal.
 * Node's own I/O errors keep their `code` (`ENOENT`, `ENOSPC`, …), which never collides with these.
 */
export type LagrangeErrorCode =
  | "invalid-problem"
  | "bad-input"
  | "unavailable"
  | "usage"
  | "aborted";

const CODES: ReadonlySet<string> = new Set<LagrangeErrorCode>([
  "invalid-problem",
  "bad-input",
  "unavailable",
  "usage",
  "aborted",
]);

/** The base of every error Lagrange raises on purpose; `code` says what kind it is. */
export class LagrangeError extends Error {
  constructor(
    readonly code: LagrangeErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The {@link LagrangeErrorCode} of any thrown value, or undefined when it is not one of ours. */
export function lagrangeErrorCode(error: unknown): LagrangeErrorCode | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && CODES.has(code) ? (code as LagrangeErrorCode) : undefined;
}

/** Raised when a problem (chain, factor graph, constraint) is malformed. `path` names the field. */
export class ProblemValidationError extends LagrangeError {
  override readonly name = "ProblemValidationError";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super("invalid-problem", `${path}: ${message}`);
  }
}

/** Raised when a run is cancelled through an AbortSignal. */
export class AbortError extends LagrangeError {
  override readonly name = "AbortError";
  constructor(message = "the operation was aborted") {
    super("aborted", message);
  }
}

/**
 * Whether a thrown value is a cancellation: the core's AbortError (code "aborted", also from
 * another copy of the package) or any error named "AbortError" (the DOM's, Node's).
 */
export function isAbortError(error: unknown): boolean {
  return lagrangeErrorCode(error) === "aborted" || (error as Error | null)?.name === "AbortError";
}

/**
 * Awaits a loader's file read (a model file, say). A file that cannot be opened (core's
 * `InputFileError`, a `usage` error naming it) and a stop pass through unchanged, since neither
 * means the file is malformed; any other failure becomes `wrap(its message)`, the loader's own
 * error naming the file.
 */
export async function wrapReadFailure<T>(
  read: Promise<T>,
  wrap: (message: string) => Error,
): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (lagrangeErrorCode(error) === "usage" || isAbortError(error)) throw error;
    throw wrap((error as Error).message);
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError();
}
