import { unlinkSync } from "node:fs";
import { constants } from "node:os";
import { resolve } from "node:path";

/**
 * Every signal whose default action ends the process and that a handler can catch: a command
 * stops on each of them the same way (outputs aborted, temporary files removed, one line), so no
 * way of ending it leaves a hidden temporary file. Left out: SIGKILL and SIGSTOP (cannot be
 * caught: the next write removes what SIGKILL left), SIGUSR1 (Node's debugger), SIGPROF (V8's
 * profiler), SIGPIPE (ignored by Node: a closed pipe is an EPIPE error), and the faults (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS), after which no handler can safely run. The
 * supervisor (bin/lagrange.mjs) keeps the same list; a test compares them.
 */
export const STOP_SIGNALS = [
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGTERM",
  "SIGUSR2",
  "SIGALRM",
  "SIGVTALRM",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGPWR",
] as const satisfies readonly NodeJS.Signals[];
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The exit code of a command a signal stopped: 128 + the signal's number, as shells report. */
export function signalExitCode(signal: StopSignal): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** The signals of this platform a command stops on (SIGPWR is Linux's alone). */
const stopSignalsHere = STOP_SIGNALS.filter((name) => constants.signals[name] !== undefined);

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
 * Runs a command with an AbortSignal that SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT (Ctrl-\) and
 * every other {@link STOP_SIGNALS} fire: long work stops at its next checkpoint, outputs are aborted
 * (no partial file), and `main` exits 128 + the signal's number (130, 143, 129, 131) with one line. A second signal exits at once, after removing temporary files — unless the
 * supervisor runs this process: a terminal's Ctrl-C reaches both, and the supervisor passes its
 * copy on, so a second signal here is the same event; the supervisor kills this process itself
 * at a second signal of its own. The handlers are removed when the command ends, so the default
 * behaviour comes back between commands.
 */
export async function interruptible<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  received = undefined;
  const handlers = stopSignalsHere.map((name) => {
    const handler = () => {
      if (controller.signal.aborted) {
        if (supervised) return;
        removeTemporaryFiles();
        process.exit(signalExitCode(name));
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
