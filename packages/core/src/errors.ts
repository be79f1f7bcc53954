/** Raised when a problem (chain, factor graph, constraint) is malformed. `path` names the field. */
export class ProblemValidationError extends Error {
  override readonly name = "ProblemValidationError";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** Raised when a run is cancelled through an AbortSignal. */
export class AbortError extends Error {
  override readonly name = "AbortError";
  constructor(message = "the operation was aborted") {
    super(message);
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError();
}
