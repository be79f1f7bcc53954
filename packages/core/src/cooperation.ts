import { throwIfAborted } from "./errors.js";

/**
 * Lets the event loop run (timers, I/O, signal handlers such as Ctrl-C's) before continuing:
 * `setImmediate` where there is one, a zero timeout in browsers.
 */
export const yieldToEventLoop: () => Promise<void> =
  typeof setImmediate === "function"
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Paces a long loop so that it stays interruptible: `if (pace.due()) await pace.pause()` between
 * units of work. A signal's `abort` comes from an event (a Ctrl-C handler, a timer), which never
 * runs while synchronous code holds the thread; pausing every few milliseconds is what lets it
 * run. `due` is synchronous so that the units between pauses cost a clock read, not a Promise.
 */
export interface Checkpoints {
  /**
   * Throws the core's AbortError once the signal is aborted; true when `intervalMs` have passed
   * since the last pause (or since the pacer was made).
   */
  due(): boolean;
  /** Lets the event loop run, then throws the core's AbortError if the signal was aborted. */
  pause(): Promise<void>;
}

/** {@link Checkpoints} for `signal` (none: never aborted), pausing every `intervalMs`. */
export function checkpoints(signal?: AbortSignal, intervalMs = 20): Checkpoints {
  let last = performance.now();
  return {
    due() {
      throwIfAborted(signal);
      return performance.now() - last >= intervalMs;
    },
    async pause() {
      await yieldToEventLoop();
      last = performance.now();
      throwIfAborted(signal);
    },
  };
}
