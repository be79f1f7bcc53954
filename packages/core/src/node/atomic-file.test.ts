import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  statSync,
} from "node:fs";
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FileWriteError, openAtomicFile, READ_ONLY_FILE, writeFileAtomic } from "./atomic-file.js";
import {
  isRoot,
  NOBODY,
  temporaryFolders,
  unprivilegedBlocked,
} from "./testing/temporary-files.js";

const onLinux = process.platform === "linux";

const nobodyBlocked = unprivilegedBlocked(fileURLToPath(import.meta.url));

describe("the atomic writer", () => {
  const { folder, removeAll } = temporaryFolders("lagrange-atomic-");
  afterAll(removeAll);

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

  it("names its temporary file to a watcher before creating it (a kill right after leaves nothing unknown)", async () => {
    const dir = await folder();
    const path = join(dir, "model.bin");
    const seen: { path: string; existed: boolean }[] = [];
    const file = await openAtomicFile(path, {
      beforeTemporaryFile: (temporaryPath) => {
        seen.push({ path: temporaryPath, existed: readdirSync(dir).length > 0 });
      },
    });
    expect(seen).toEqual([{ path: file.temporaryPath, existed: false }]);
    await file.write("x");
    await file.commit();
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

/** What a path is, without following a last symbolic link. */
function kindOf(path: string): string {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isCharacterDevice()) return "character device";
  if (stats.isFIFO()) return "fifo";
  if (stats.isDirectory()) return "directory";
  return stats.isFile() ? "file" : "other";
}

/** A process reading a FIFO to its end (`cat fifo`), as a user's reader would. */
function readerOf(fifo: string): { readonly text: Promise<string> } {
  const child = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "inherit"] });
  let text = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
  });
  return { text: new Promise((done) => child.on("close", () => done(text))) };
}

/** A descriptor open for writing on a FIFO that `reader` reads (waits for the reader's open). */
async function writerFd(fifo: string): Promise<number> {
  for (;;) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENXIO") throw error;
      await new Promise((done) => setTimeout(done, 10));
    }
  }
}

describe.skipIf(process.platform === "win32")(
  "the atomic writer's destinations that are not regular files",
  () => {
    const { folder, removeAll } = temporaryFolders("lagrange-atomic-kinds-");
    afterAll(removeAll);
    const text = Array.from({ length: 20_000 }, (_, i) => `token ${i} O\n`).join("");

    it.skipIf(!isRoot || !onLinux)(
      "writes a character device in place and leaves it a device (a copy of /dev/null, made as root)",
      async () => {
        const dir = await folder();
        const device = join(dir, "null");
        execFileSync("mknod", [device, "c", "1", "3"]);
        const before = statSync(device).rdev;
        const file = await openAtomicFile(device);
        expect(file.temporaryPath).toBeNull();
        await file.write(text);
        await file.commit();
        await writeFileAtomic(device, "again\n");
        expect(kindOf(device)).toBe("character device");
        expect(statSync(device).rdev).toBe(before);
        expect(await readdir(dir)).toEqual(["null"]);
      },
    );

    it.skipIf(!isRoot || !onLinux)(
      "a device that refuses the bytes (a copy of /dev/full) fails with its reason and stays a device",
      async () => {
        const dir = await folder();
        const device = join(dir, "full");
        execFileSync("mknod", [device, "c", "1", "7"]);
        const error = await writeFileAtomic(device, text).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(FileWriteError);
        expect((error as FileWriteError).code).toBe("ENOSPC");
        expect(kindOf(device)).toBe("character device");
        expect(await readdir(dir)).toEqual(["full"]);
      },
    );

    it("writes a FIFO with a waiting reader in place: the reader gets every byte and its end", async () => {
      const dir = await folder();
      const fifo = join(dir, "fifo");
      execFileSync("mkfifo", [fifo]);
      const reader = readerOf(fifo);
      await writeFileAtomic(fifo, text);
      expect(await reader.text).toBe(text);
      expect(kindOf(fifo)).toBe("fifo");
      expect(await readdir(dir)).toEqual(["fifo"]);
    });

    it("waits for a FIFO's reader without blocking the process, and a signal ends the wait", async () => {
      const dir = await folder();
      const fifo = join(dir, "fifo");
      execFileSync("mkfifo", [fifo]);
      // No reader: the wait is a timer, so this process's timers (the abort below) still run.
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const stopped = await openAtomicFile(fifo, { signal: controller.signal }).catch((e) => e);
      // The signal's own reason (an AbortError), not a write failure.
      expect(stopped).not.toBeInstanceOf(FileWriteError);
      expect((stopped as Error).name).toBe("AbortError");
      expect(kindOf(fifo)).toBe("fifo");
      // A reader that comes later gets the bytes, as with `cat > fifo`.
      const writing = writeFileAtomic(fifo, "late\n");
      await new Promise((done) => setTimeout(done, 100));
      const reader = readerOf(fifo);
      await writing;
      expect(await reader.text).toBe("late\n");
      expect(await readdir(dir)).toEqual(["fifo"]);
    });

    it("writes a symbolic link's target (atomically, beside the target) and leaves the link a link", async () => {
      const dir = await folder();
      await mkdir(join(dir, "real"));
      const target = join(dir, "real", "model.bin");
      await writeFile(target, "old");
      await symlink("real/model.bin", join(dir, "link"));
      await symlink("link", join(dir, "link-to-link"));
      const file = await openAtomicFile(join(dir, "link-to-link"));
      expect(file.temporaryPath?.startsWith(join(dir, "real", ".lgr-"))).toBe(true);
      await file.write("new");
      await file.commit();
      expect(await readFile(target, "utf8")).toBe("new");
      expect(kindOf(join(dir, "link"))).toBe("symlink");
      expect(readlinkSync(join(dir, "link"))).toBe("real/model.bin");
      expect(kindOf(join(dir, "link-to-link"))).toBe("symlink");
      expect((await readdir(dir)).sort()).toEqual(["link", "link-to-link", "real"]);
      expect(await readdir(join(dir, "real"))).toEqual(["model.bin"]);
    });

    it("a dangling symbolic link: creates the file it names when that folder exists, else says why", async () => {
      const dir = await folder();
      await symlink("made-by-writing.txt", join(dir, "dangling"));
      await writeFileAtomic(join(dir, "dangling"), "created\n");
      expect(kindOf(join(dir, "dangling"))).toBe("symlink");
      expect(await readFile(join(dir, "made-by-writing.txt"), "utf8")).toBe("created\n");
      await symlink("missing-folder/x.txt", join(dir, "nowhere"));
      const error = await writeFileAtomic(join(dir, "nowhere"), "x").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileWriteError);
      expect((error as FileWriteError).code).toBe("ENOENT");
      expect((error as Error).message).toContain(`cannot write ${join(dir, "nowhere")}: `);
      expect(kindOf(join(dir, "nowhere"))).toBe("symlink");
    });

    it.skipIf(!onLinux)(
      "a descriptor link to a pipe (what /dev/stdout is) is written through, never replaced",
      async () => {
        const dir = await folder();
        const fifo = join(dir, "pipe");
        execFileSync("mkfifo", [fifo]);
        const reader = readerOf(fifo);
        const fd = await writerFd(fifo);
        const stdout = join(dir, "stdout");
        await symlink(`/proc/self/fd/${fd}`, stdout);
        try {
          const file = await openAtomicFile(stdout);
          expect(file.temporaryPath).toBeNull();
          await file.write(text);
          await file.commit();
        } finally {
          closeSync(fd);
        }
        expect(await reader.text).toBe(text);
        expect(kindOf(stdout)).toBe("symlink");
        expect(readlinkSync(stdout)).toBe(`/proc/self/fd/${fd}`);
        expect((await readdir(dir)).sort()).toEqual(["pipe", "stdout"]);
      },
    );

    it.skipIf(!onLinux)(
      "a descriptor link to a regular file (stdout redirected with >>) appends to that very file",
      async () => {
        const dir = await folder();
        const log = join(dir, "log.txt");
        await writeFile(log, "old\n");
        const inode = statSync(log).ino;
        const fd = openSync(log, "a");
        const stdout = join(dir, "stdout");
        await symlink(`/proc/self/fd/${fd}`, stdout);
        try {
          await writeFileAtomic(stdout, "new\n");
        } finally {
          closeSync(fd);
        }
        expect(await readFile(log, "utf8")).toBe("old\nnew\n");
        expect(statSync(log).ino).toBe(inode);
        expect(kindOf(stdout)).toBe("symlink");
      },
    );

    it("refuses a directory and a socket, naming the path", async () => {
      const dir = await folder();
      const asDirectory = await writeFileAtomic(dir, "x").catch((e: unknown) => e);
      expect(asDirectory).toBeInstanceOf(FileWriteError);
      expect((asDirectory as FileWriteError).code).toBe("EISDIR");
      expect((asDirectory as Error).message).toBe(
        `cannot write ${dir}: is a directory; expected a file path`,
      );
      const socketPath = join(dir, "socket");
      const server = createServer();
      await new Promise<void>((done) => server.listen(socketPath, done));
      try {
        const asSocket = await writeFileAtomic(socketPath, "x").catch((e: unknown) => e);
        expect(asSocket).toBeInstanceOf(FileWriteError);
        expect((asSocket as Error).message).toMatch(/is a socket/);
      } finally {
        await new Promise((done) => server.close(done));
      }
    });

    it.skipIf(!onLinux || nobodyBlocked !== undefined)(
      `as an unprivileged user (uid ${NOBODY} when the tests run as root): /dev/null, /dev/stdout, a FIFO and a link are written in place${nobodyBlocked === undefined ? "" : ` (skipped: ${nobodyBlocked})`}`,
      async () => {
        const dir = await folder();
        await chmod(dir, 0o777);
        const fifo = join(dir, "fifo");
        execFileSync("mkfifo", [fifo]);
        await chmod(fifo, 0o666);
        const target = join(dir, "target.txt");
        await writeFile(target, "old");
        await chmod(target, 0o666);
        await symlink("target.txt", join(dir, "link"));
        const reader = readerOf(fifo);
        const script = join(dir, "write-as-user.mjs");
        const atomicFile = pathToFileURL(
          fileURLToPath(new URL("./atomic-file.ts", import.meta.url)),
        );
        await writeFile(
          script,
          [
            `const { writeFileAtomic } = await import(${JSON.stringify(atomicFile.href)});`,
            `await writeFileAtomic("/dev/null", "discarded\\n");`,
            `await writeFileAtomic("/dev/stdout", "through stdout\\n");`,
            `await writeFileAtomic(${JSON.stringify(fifo)}, "through the fifo\\n");`,
            `await writeFileAtomic(${JSON.stringify(join(dir, "link"))}, "new");`,
          ].join("\n"),
        );
        await chmod(script, 0o644);
        const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
        const child = spawnSync(process.execPath, ["--import", tsx, script], {
          cwd: dir,
          encoding: "utf8",
          ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
        });
        expect(child.stderr).toBe("");
        expect(child.status).toBe(0);
        expect(child.stdout).toBe("through stdout\n");
        expect(await reader.text).toBe("through the fifo\n");
        expect(await readFile(target, "utf8")).toBe("new");
        expect(kindOf("/dev/null")).toBe("character device");
        expect(kindOf(fifo)).toBe("fifo");
        expect(kindOf(join(dir, "link"))).toBe("symlink");
      },
    );
  },
);

describe("temporary files left by killed writers", () => {
  it("are removed when the destination is next written (their process is gone); live ones stay", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lagrange-atomic-stale-"));
    try {
      // A process that has ended: its id names no process (SIGKILL left its file behind).
      const dead = spawnSync(process.execPath, ["-e", ""]).pid;
      const live = process.ppid;
      const stale = `.lgr-${dead}.0123456789ab.tmp`;
      const running = `.lgr-${live}.ba9876543210.tmp`;
      // The older naming, of this destination and of another one.
      const older = `.out.txt.${dead}.0123456789ab.tmp`;
      const otherDestination = `.other.txt.${dead}.0123456789ab.tmp`;
      for (const name of [stale, running, older, otherDestination]) {
        await writeFile(join(dir, name), "x");
      }
      await writeFileAtomic(join(dir, "out.txt"), "done\n");
      expect((await readdir(dir)).sort()).toEqual([otherDestination, running, "out.txt"].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("replacing a file keeps what its owner set", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-atomic-mode-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps the mode of the file it replaces (0600 stays 0600, 0640 stays 0640)", async () => {
    for (const mode of [0o600, 0o640, 0o755]) {
      const path = join(dir, `kept-${mode.toString(8)}.txt`);
      await writeFile(path, "old");
      await chmod(path, mode);
      await writeFileAtomic(path, "new");
      expect(await readFile(path, "utf8")).toBe("new");
      expect((await stat(path)).mode & 0o7777).toBe(mode);
    }
  });

  it.skipIf(process.getuid?.() !== 0)(
    "keeps the owner of the file it replaces (as root)",
    async () => {
      const path = join(dir, "owned.txt");
      await writeFile(path, "old");
      await chown(path, 65534, 65534);
      await writeFileAtomic(path, "new");
      const stats = await stat(path);
      expect([stats.uid, stats.gid]).toEqual([65534, 65534]);
    },
  );

  it("refuses a read-only file unless told to replace it, and then keeps it read-only", async () => {
    const path = join(dir, "read-only.txt");
    await writeFile(path, "old");
    await chmod(path, 0o444);
    const refused = await writeFileAtomic(path, "new").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FileWriteError);
    expect((refused as FileWriteError).code).toBe(READ_ONLY_FILE);
    expect((refused as Error).message).toContain("read-only");
    expect(await readFile(path, "utf8")).toBe("old");
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    await writeFileAtomic(path, "new", { replaceReadOnly: true });
    expect(await readFile(path, "utf8")).toBe("new");
    expect((await stat(path)).mode & 0o7777).toBe(0o444);
  });

  it("reads `..` as the kernel does: never lexically, so `missing/../f` is refused, not f", async () => {
    const input = join(dir, "input.txt");
    await writeFile(input, "input");
    const refused = await writeFileAtomic(`${dir}/missing/../input.txt`, "x").catch(
      (error: unknown) => error,
    );
    expect((refused as FileWriteError).code).toBe("ENOENT");
    expect(await readFile(input, "utf8")).toBe("input");
    // `link/../f` names f beside the link's target, not beside the link.
    await mkdir(join(dir, "elsewhere", "deep"), { recursive: true });
    await symlink(join(dir, "elsewhere", "deep"), join(dir, "link"));
    // (join would normalise the `..` away: the path is written as a user types it.)
    await writeFileAtomic(`${dir}/link/../input.txt`, "beside the target");
    expect(await readFile(input, "utf8")).toBe("input");
    expect(await readFile(join(dir, "elsewhere", "input.txt"), "utf8")).toBe("beside the target");
  });

  it("writes a destination whose name is as long as the file system allows (255 bytes)", async () => {
    const path = join(dir, `${"n".repeat(251)}.lgm`);
    await writeFileAtomic(path, "long name");
    expect(await readFile(path, "utf8")).toBe("long name");
  });
});
