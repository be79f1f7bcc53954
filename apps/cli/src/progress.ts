import { createRequire } from "node:module";
import { redactSecrets } from "@lagrange/core/node";

/** cli-progress, loaded on the first bar (a terminal only): `--help` and piped runs never load it. */
const loadCliProgress = (): typeof import("cli-progress") =>
  createRequire(import.meta.url)("cli-progress");

export interface Progress {
  update(done: number, detail?: string): void;
  stop(): void;
}

/**
 * A progress bar on stderr when it is a terminal; otherwise (pipes, CI) silent, so output files
 * and logs stay clean. `total` undefined: the work has no fixed end (L-BFGS stops when the loss
 * does), so the bar counts without a total rather than stall at a guess; a count past `total`
 * raises it, so the bar follows the work rather than the estimate.
 */
export function progressBar(
  label: string,
  total: number | undefined,
  enabled = process.stderr.isTTY,
): Progress {
  if (!enabled || (total !== undefined && total <= 0)) return { update() {}, stop() {} };
  const { SingleBar } = loadCliProgress();
  const bar = new SingleBar({
    format:
      total === undefined
        ? `${label.padEnd(10)} #{value} | {detail}`
        : `${label.padEnd(10)} [{bar}] {percentage}% | {value}/{total} | {detail}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
    barsize: 30,
  });
  let limit = total ?? Number.POSITIVE_INFINITY;
  bar.start(total ?? 0, 0, { detail: "" });
  return {
    update(done, detail = "") {
      if (done > limit) {
        limit = done;
        bar.setTotal(done);
      }
      bar.update(done, { detail });
    },
    stop() {
      bar.stop();
    },
  };
}

/** A one-line status message on stderr (never on stdout, which carries results). */
export function note(message: string): void {
  writeStderr(`${message}\n`);
}

/** An option or input that will not do what the user may think: said, and the command goes on. */
export function warn(message: string): void {
  writeStderr(`lagrange: warning: ${message}\n`);
}

/**
 * Writes to stderr, never throwing: with stderr closed or full (`2>/dev/full`) there is nowhere to
 * report, and the command's result (its output, its exit code) must not depend on messages. Every
 * line the CLI writes passes here, so secrets are redacted here once (core's `redactSecrets`:
 * URL credentials, secret query parameters), whatever quoted them: an error, a warning, a
 * progress note, commander's own message, a `LAGRANGE_DEBUG` stack.
 */
export function writeStderr(text: string): void {
  try {
    process.stderr.write(redactSecrets(text));
  } catch {
    // Nowhere left to report.
  }
}
