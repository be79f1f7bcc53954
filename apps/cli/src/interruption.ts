import { unlinkSync } from "node:fs";
import { resolve } from "node:path";

/** The signals a command stops on, and the exit code of each (128 + its number, as shells report). */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

let received: StopSignal | undefined;
const temporaryFiles = new Set<string>();

/**
 * Started by the `lagrange` binary's supervisor (bin/lagrange.mjs), which set the variable and
 * opened an IPC channel: it kills this process if a signal does not stop it in time, and then
 * removes the temporary files registered with it. The variable is removed so that processes this
 * one starts do not take its parent for theirs; the channel must not keep this process alive.
 */
const supervised = process.env.LAGRANGE_SUPERVISOR === "1" && typeof process.send === "function";
if (process.env.LAGRANGE_SUPERVISOR !== undefined) delete process.env.LAGRANGE_SUPERVISOR;
if (supervised) {
  process.channel?.unref();
  // The supervisor went away (killed with SIGKILL, which it cannot pass on): nothing would stop
  // this process any more, so it stops itself as a hang-up does, at the next checkpoint.
  process.once("disconnect", () => process.kill(process.pid, "SIGHUP"));
}

/**
 * Tells the supervisor, if there is one, about a temporary file (a path it can remove after
 * killing this process). The message is written at once when the channel is idle, so it arrives
 * even if synchronous work then blocks this process until it is killed.
 */
function tellSupervisor(message: SupervisorMessage): void {
  if (!supervised || !process.connected) return;
  try {
    process.send?.(message, () => {
      // A supervisor that went away cannot be told; files are still removed here.
    });
  } catch {
    // The channel closed meanwhile.
  }
}

/** What bin/lagrange.mjs reads on the channel. */
type SupervisorMessage =
  | { readonly lagrange: "temporary-file"; readonly op: "add" | "remove"; readonly path: string }
  | { readonly lagrange: "final-line" };

/**
 * Tells the supervisor that this process writes its one `lagrange: …` line on how the command
 * ended: if the supervisor then kills it (its grace period ran out meanwhile), it adds none.
 */
export function announceFinalLine(): void {
  tellSupervisor({ lagrange: "final-line" });
}

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
  tellSupervisor({ lagrange: "temporary-file", op: "add", path: resolve(path) });
  return () => {
    if (temporaryFiles.delete(path)) {
      tellSupervisor({ lagrange: "temporary-file", op: "remove", path: resolve(path) });
    }
  };
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
 * Runs a command with an AbortSignal that SIGINT (Ctrl-C), SIGTERM and SIGHUP fire: long work
 * stops at its next checkpoint, outputs are aborted (no partial file), and `main` exits 130, 143 or
 * 129 with one line. A second signal exits at once, after removing temporary files — unless the
 * supervisor runs this process: a terminal's Ctrl-C reaches both, and the supervisor passes its
 * copy on, so a second signal here is the same event; the supervisor kills this process itself
 * at a second signal of its own. The handlers are removed when the command ends, so the default
 * behaviour comes back between commands.
 */
export async function interruptible<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  received = undefined;
  const handlers = (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]).map((name) => {
    const handler = () => {
      if (controller.signal.aborted) {
        if (supervised) return;
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
