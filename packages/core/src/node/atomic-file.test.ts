import { chmod, mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { FileWriteError, openAtomicFile, writeFileAtomic } from "./atomic-file.js";

describe("the atomic writer", () => {
  const dirs: string[] = [];
  const folder = async () => {
    const dir = await mkdtemp(join(tmpdir(), "lagrange-atomic-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of dirs) {
      await chmod(dir, 0o755).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writes text, bytes and chunk streams (past the buffer size) and leaves no temporary file", async () => {
    const dir = await folder();
    const path = join(dir, "out.txt");
    await writeFileAtomic(path, "hello\n");
    expect(await readFile(path, "utf8")).toBe("hello\n");
    await writeFileAtomic(path, Uint8Array.of(104, 105));
    expect(await readFile(path, "utf8")).toBe("hi");
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`);
    async function* chunks() {
      for (const line of lines) yield line;
    }
    await writeFileAtomic(path, chunks());
    expect(await readFile(path, "utf8")).toBe(lines.join(""));
    expect(await readdir(dir)).toEqual(["out.txt"]);
  });

  it("writes again after a short write (a nearly full disk writes what fits and says so)", async () => {
    const dir = await folder();
    const probe = await open(join(dir, "probe"), "w");
    const prototype = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => unknown };
    await probe.close();
    const original = prototype.write;
    // At most 1000 bytes per call, as a write into the last free blocks of a file system returns.
    const spy = vi.spyOn(prototype, "write").mockImplementation(function (
      this: unknown,
      ...args: unknown[]
    ) {
      const [buffer, offset = 0, length = (buffer as Uint8Array).length] = args as [
        Uint8Array,
        number?,
        number?,
      ];
      return original.call(this, buffer, offset, Math.min(length, 1000));
    });
    try {
      const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256);
      await writeFileAtomic(join(dir, "big.bin"), bytes);
      expect(new Uint8Array(await readFile(join(dir, "big.bin")))).toEqual(bytes);
      expect(spy.mock.calls.length).toBeGreaterThanOrEqual(200);
    } finally {
      spy.mockRestore();
    }
  });

  it("an abort or a failure leaves the previous file as it was", async () => {
    const dir = await folder();
    const path = join(dir, "model.bin");
    await writeFile(path, "old");
    const file = await openAtomicFile(path);
    await file.write("new, half written");
    await file.abort();
    expect(await readFile(path, "utf8")).toBe("old");
    const controller = new AbortController();
    async function* stopping() {
      yield "a";
      controller.abort();
      yield "b";
    }
    await expect(
      writeFileAtomic(path, stopping(), { signal: controller.signal }),
    ).rejects.toThrow();
    expect(await readFile(path, "utf8")).toBe("old");
    expect(await readdir(dir)).toEqual(["model.bin"]);
  });

  it("names the file and keeps Node's code when the folder is missing", async () => {
    const dir = await folder();
    const path = join(dir, "missing", "out.txt");
    const error = await writeFileAtomic(path, "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as FileWriteError).code).toBe("ENOENT");
    expect((error as Error).message).toMatch(
      new RegExp(`^cannot write ${path.replace(/[/.]/g, "\\$&")}: `),
    );
  });
});
