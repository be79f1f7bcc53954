import { describe, expect, it } from "vitest";
import { AbortError, LagrangeError, wrapReadFailure } from "./errors.js";

class LoaderError extends Error {}
const wrap = (message: string) => new LoaderError(`model.bin: cannot read the model: ${message}`);

describe("wrapReadFailure", () => {
  it("returns what the read gives", async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    await expect(wrapReadFailure(Promise.resolve(bytes), wrap)).resolves.toBe(bytes);
  });

  it("passes a file that cannot be opened (usage) and a stop through unchanged", async () => {
    const missing = new LagrangeError("usage", "cannot open model.bin: no such file");
    await expect(wrapReadFailure(Promise.reject(missing), wrap)).rejects.toBe(missing);
    const stopped = new AbortError();
    await expect(wrapReadFailure(Promise.reject(stopped), wrap)).rejects.toBe(stopped);
    const domAbort = Object.assign(new Error("aborted"), { name: "AbortError" });
    await expect(wrapReadFailure(Promise.reject(domAbort), wrap)).rejects.toBe(domAbort);
  });

  it("turns any other failure into the loader's error, keeping its message", async () => {
    const io = Object.assign(new Error("EIO: i/o error"), { code: "EIO" });
    const failure = wrapReadFailure(Promise.reject(io), wrap);
    await expect(failure).rejects.toBeInstanceOf(LoaderError);
    await expect(failure).rejects.toThrow("model.bin: cannot read the model: EIO: i/o error");
  });
});
