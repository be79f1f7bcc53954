import { SingleBar } from "cli-progress";

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
  process.stderr.write(`${message}\n`);
}
