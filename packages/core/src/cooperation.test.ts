import { describe, expect, it } from "vitest";
import { checkpoints } from "./cooperation.js";
import { AbortError } from "./errors.js";

describe("checkpoints", () => {
  it("let a timer run during a long loop, so that its abort stops the loop", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const checkpoint = checkpoints(controller.signal, 2);
    let units = 0;
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        // A unit of synchronous work.
      }
    };
    await expect(
      (async () => {
        // 5 s of work if nothing stopped it; without yields the timer could never fire.
        for (let i = 0; i < 5000; i++) {
          if (checkpoint.due()) await checkpoint.pause();
          busy(1);
          units++;
        }
      })(),
    ).rejects.toBeInstanceOf(AbortError);
    // Some work ran before the stop (how much depends on the machine's load), and far from all.
    expect(units).toBeGreaterThan(0);
    expect(units).toBeLessThan(1000);
  });

  it("throw at once when the signal is already aborted, and do nothing without one", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(() => checkpoints(controller.signal).due()).toThrow(AbortError);
    const free = checkpoints();
    for (let i = 0; i < 100; i++) if (free.due()) await free.pause();
  });
});
