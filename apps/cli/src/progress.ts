import { createRequire } from "node:module";

/** cli-progress, loaded on the first bar (a terminal only): `--help` and piped runs never load it. */
const loadCliProgress = (): typeof import("cli-progress") =>
  createRequire(import.meta.url)("cli-progress");

export interface Progress {
  update(done: number, detail?: string): void;
  stop(): void;
}

/**
 * A progress bar on stderr when it is a terminal; otherwise (pipes, CI) silent, so output files
 * and logs stay clean.
 */
export function progressBar(
  label: string,
  total: number,
  enabled = process.stderr.isTTY,
): Progress {
  if (!enabled || total <= 0) return { update() {}, stop() {} };
  const { SingleBar } = loadCliProgress();
  const bar = new SingleBar({
    format: `${label.padEnd(10)} [{bar}] {percentage}% | {value}/{total} | {detail}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
    barsize: 30,
  });
  bar.start(total, 0, { detail: "" });
  return {
    update(done, detail = "") {
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
 * report, and the command's result (its output, its exit code) must not depend on messages.
 */
export function writeStderr(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // Nowhere left to report.
  }
}
