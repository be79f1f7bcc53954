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
 * Makes a long loop interruptible: `await checkpoint()` between units of work throws the core's
 * AbortError once `signal` is aborted, and yields to the event loop when `intervalMs` have passed
 * since the last yield. A signal's `abort` comes from an event (a Ctrl-C handler, a timer), which
 * never runs while synchronous code holds the thread; yielding every few milliseconds is what lets
 * it run, at the cost of a clock read per call.
 */
export function checkpoints(signal?: AbortSignal, intervalMs = 20): () => Promise<void> {
  let last = performance.now();
  return async () => {
    throwIfAborted(signal);
    const now = performance.now();
    if (now - last < intervalMs) return;
    await yieldToEventLoop();
    last = performance.now();
    throwIfAborted(signal);
  };
}
