import { unlinkSync } from "node:fs";

/** The signals a command stops on, and the exit code of each (128 + its number, as shells report). */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

let received: StopSignal | undefined;
const temporaryFiles = new Set<string>();

/** The signal that stopped the current command, if one did. */
export function stopSignal(): StopSignal | undefined {
  return received;
}

/**
 * Registers an output's temporary file until it is committed or aborted (the returned function
 * forgets it): a process that must exit at once removes it synchronously, as no `abort` will run.
 */
export function trackTemporaryFile(path: string): () => void {
  temporaryFiles.add(path);
  return () => temporaryFiles.delete(path);
}

/** Removes every tracked temporary file; for exits that skip the normal clean-up. */
export function removeTemporaryFiles(): void {
  for (const path of temporaryFiles) {
    try {
      unlinkSync(path);
    } catch {
      // Already gone (committed or aborted meanwhile).
    }
  }
  temporaryFiles.clear();
}

/**
 * Runs a command with an AbortSignal that SIGINT (Ctrl-C) and SIGTERM fire: long work stops at
 * its next checkpoint, outputs are aborted (no partial file), and `main` exits 130 or 143 with one
 * line. A second signal exits at once, after removing temporary files. The handlers are removed
 * when the command ends, so the default behaviour comes back between commands.
 */
export async function interruptible<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  received = undefined;
  const handlers = (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]).map((name) => {
    const handler = () => {
      if (controller.signal.aborted) {
        removeTemporaryFiles();
        process.exit(SIGNAL_EXIT_CODES[name]);
      }
      received = name;
      controller.abort();
    };
    process.on(name, handler);
    return () => process.off(name, handler);
  });
  try {
    return await run(controller.signal);
  } finally {
    for (const remove of handlers) remove();
  }
}
