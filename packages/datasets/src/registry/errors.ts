import { LagrangeError } from "@lagrange/core";

/** A dataset file is not available locally and could not (or may not) be downloaded. */
export class DatasetUnavailableError extends LagrangeError {
  override readonly name = "DatasetUnavailableError";
  constructor(
    message: string,
    /** Where the file may be placed so that it is found next time. */
    readonly destinations: readonly string[],
  ) {
    super("unavailable", message);
  }
}

/** A file's size or SHA-256 differs from the registry's. */
export class DatasetChecksumError extends LagrangeError {
  override readonly name = "DatasetChecksumError";
  constructor(
    message: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super("unavailable", message);
  }
}

/** A download failed: HTTP status, a broken connection, or a malformed archive. */
export class DatasetDownloadError extends LagrangeError {
  override readonly name = "DatasetDownloadError";
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super("unavailable", message);
  }
}

/** A configured mirror or cache directory is unusable. */
export class DatasetConfigError extends LagrangeError {
  override readonly name = "DatasetConfigError";
  constructor(message: string) {
    super("unavailable", message);
  }
}
