import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { lagrangeErrorCode } from "../errors.js";
import {
  INPUT_CAPS_VARIABLE,
  INPUT_SIZE_CAPS,
  InputTooLargeError,
  inputSizeCap,
  parseInputCaps,
} from "./input-caps.js";
import {
  checkInputFile,
  InputFileError,
  inputFileError,
  openInput,
  readInput,
} from "./input-file.js";
import {
  isRoot,
  NOBODY,
  temporaryFolders,
  unprivilegedBlocked,
} from "./testing/temporary-files.js";

const posix = process.platform !== "win32";

const nobodyBlocked = unprivilegedBlocked(fileURLToPath(import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const INPUT_FILE = pathToFileURL(fileURLToPath(new URL("./input-file.ts", import.meta.url))).href;

/** Bytes that are not all alike, so that a lost or repeated chunk shows. */
function pattern(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + (i >> 10)) % 251);
}

/** Byte equality in one comparison (a deep equality of 300,000 elements is slow). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(
    Buffer.from(b.buffer, b.byteOffset, b.length),
  );
}

/** A Node child that imports input-file.ts and runs `body` (an ES module's top-level code). */
function childScript(body: string): string {
  return `const input = await import(${JSON.stringify(INPUT_FILE)});\n${body}\n`;
}

describe("reading the files a user names", () => {
  const { folder, removeAll } = temporaryFolders("lagrange-input-");
  afterAll(removeAll);

  it("reads a regular file whole, and in chunks with its size and the bytes read so far", async () => {
    const dir = await folder();
    const path = join(dir, "data.bin");
    const bytes = pattern(300_000);
    await writeFile(path, bytes);
    expect(same(await readInput(path), bytes)).toBe(true);
    expect(same(await readInput(pathToFileURL(path)), bytes)).toBe(true);
    const input = await openInput(path);
    expect(input.kind).toBe("file");
    expect(input.size).toBe(300_000);
    const chunks: Uint8Array[] = [];
    for await (const chunk of input) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(same(Buffer.concat(chunks), bytes)).toBe(true);
    expect(input.bytesRead).toBe(300_000);
  });

  it.skipIf(!posix)("reads a FIFO to its end once its writer comes", async () => {
    const dir = await folder();
    const source = join(dir, "source.bin");
    const fifo = join(dir, "fifo");
    const bytes = pattern(300_000);
    await writeFile(source, bytes);
    execFileSync("mkfifo", [fifo]);
    const reading = readInput(fifo);
    // The writer comes after the open: the reader waits for it on epoll.
    await new Promise((done) => setTimeout(done, 50));
    spawn("sh", ["-c", 'cat "$1" > "$2"', "sh", source, fifo], { stdio: "ignore" });
    expect(same(await reading, bytes)).toBe(true);
  });

  it.skipIf(!posix)("a FIFO with no writer: the signal ends the wait", async () => {
    const dir = await folder();
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(readInput(fifo, { signal: controller.signal })).rejects.toThrow();
  });

  it.skipIf(!posix)(
    "a process waiting on a FIFO with no writer still exits on a signal (no thread blocked in open)",
    async () => {
      const dir = await folder();
      const fifo = join(dir, "fifo");
      execFileSync("mkfifo", [fifo]);
      const script = join(dir, "wait.mjs");
      await writeFile(
        script,
        childScript(
          [
            `process.on("SIGINT", () => process.exit(130));`,
            `const reading = input.readInput(${JSON.stringify(fifo)});`,
            `process.stderr.write("waiting\\n");`,
            "await reading;",
          ].join("\n"),
        ),
      );
      const child = spawn(process.execPath, ["--import", TSX, script], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      await new Promise<void>((done) => child.stderr.once("data", () => done()));
      child.kill("SIGINT");
      const [code] = await new Promise<[number | null, string | null]>((done) =>
        child.on("close", (c, s) => done([c, s])),
      );
      expect(code).toBe(130);
    },
  );

  it.skipIf(!posix)(
    "reads a shell's process substitution (/dev/fd/63, a pipe) past 64 KiB",
    async () => {
      const dir = await folder();
      const source = join(dir, "model.bin");
      await writeFile(source, pattern(300_000));
      const script = join(dir, "length.mjs");
      await writeFile(
        script,
        childScript(
          [
            "const bytes = await input.readInput(process.argv[2]);",
            "const streamed = await input.openInput(process.argv[3]);",
            "let n = 0;",
            "for await (const chunk of streamed) n += chunk.length;",
            'process.stdout.write([bytes.length, streamed.kind, n].join(" "));',
          ].join("\n"),
        ),
      );
      const run = spawnSync(
        "bash",
        [
          "-c",
          `"${process.execPath}" --import ${TSX} "$1" <(cat "$2") <(cat "$2")`,
          "bash",
          script,
          source,
        ],
        { encoding: "utf8" },
      );
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("300000 pipe 300000");
    },
  );

  it.skipIf(process.platform !== "linux")(
    "/dev/stdin that is a socket (a Node parent's socket pair, which cannot be opened anew) is standard input",
    async () => {
      const dir = await folder();
      const script = join(dir, "stdin.mjs");
      await writeFile(
        script,
        childScript(
          [
            'input.checkInputFile("/dev/stdin");',
            'const bytes = await input.readInput("/dev/stdin");',
            "process.stdout.write(String(bytes.length));",
          ].join("\n"),
        ),
      );
      // spawnSync's `input` reaches the child through a socket pair, as any Node parent's pipe does.
      const run = spawnSync(process.execPath, ["--import", TSX, script], {
        input: Buffer.from(pattern(200_000)),
        encoding: "utf8",
      });
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("200000");
    },
  );

  it.skipIf(process.platform !== "linux")(
    "a device that never ends (/dev/zero) stops at the cap; /dev/null is empty",
    async () => {
      const error = await readInput("/dev/zero", { maxBytes: 1 << 20 }).catch((e: unknown) => e);
      expect(lagrangeErrorCode(error)).toBe("bad-input");
      expect((error as Error).message).toBe(
        "/dev/zero: larger than 1048576 bytes, the most accepted here",
      );
      expect(await readInput("/dev/null")).toEqual(new Uint8Array(0));
      expect((await openInput("/dev/null")).kind).toBe("device");
    },
  );

  it.skipIf(process.platform !== "linux")(
    "a named kind refuses every device but a terminal and the null device, before reading a byte",
    async () => {
      // The null device is empty, as safe as an empty file (`lagrange tag --data - < /dev/null`).
      expect(await readInput("/dev/null", { kind: "lexicon" })).toEqual(new Uint8Array(0));
      for (const device of ["/dev/zero", "/dev/urandom"]) {
        for (const read of [
          () => readInput(device, { kind: "lexicon" }),
          () => openInput(device, { kind: "data" }),
        ]) {
          const error = await read().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InputFileError);
          expect((error as InputFileError).errno).toBe("ENODEV");
          expect(lagrangeErrorCode(error)).toBe("usage");
          expect((error as Error).message).toBe(
            `${device}: a device; expected a regular file or a pipe`,
          );
        }
      }
    },
  );

  it("a named kind's cap: a regular file by its size before any read, a pipe as it is read", async () => {
    const dir = await folder();
    const path = join(dir, "big.txt");
    await writeFile(path, pattern(3000));
    const env = { [INPUT_CAPS_VARIABLE]: "template=2k" };
    const maxBytes = inputSizeCap("template", env);
    expect(maxBytes).toBe(2000);
    for (const read of [
      () => readInput(path, { kind: "template", maxBytes }),
      () => openInput(path, { kind: "template", maxBytes }),
    ]) {
      const error = await read().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputTooLargeError);
      expect(lagrangeErrorCode(error)).toBe("bad-input");
      expect((error as Error).message).toBe(
        `${path}: 2.9 KiB (3000 bytes), over the 2.0 KiB (2000 bytes) cap on template files; raise it with LAGRANGE_MAX_INPUT=template=SIZE (e.g. template=4KiB)`,
      );
    }
    expect((await readInput(path, { kind: "template", maxBytes: 3000 })).length).toBe(3000);
    if (!posix) return;
    const fifo = join(dir, "cap.fifo");
    execFileSync("mkfifo", [fifo]);
    const writer = spawn("sh", ["-c", `head -c 200000 /dev/zero > ${fifo}`]);
    const input = await openInput(fifo, { kind: "lexicon", maxBytes: 100_000 });
    let held = 0;
    const error = await (async () => {
      for await (const chunk of input) held += chunk.length;
    })().catch((e: unknown) => e);
    writer.kill();
    expect((error as Error).message).toMatch(
      /^.*cap\.fifo: more than 97\.7 KiB \(100000 bytes\) read, over the 97\.7 KiB \(100000 bytes\) cap on lexicon files/,
    );
    // Stopped at the chunk that crossed the cap: never more than a chunk past it.
    expect(held).toBeLessThanOrEqual(100_000);
  });

  it("caps come from one table, and the environment sets them or is refused by name", () => {
    expect(inputSizeCap("model", {})).toBe(INPUT_SIZE_CAPS.model);
    expect(parseInputCaps("lexicon=2G, template=64MiB,")).toEqual({
      lexicon: 2e9,
      template: 64 * 2 ** 20,
    });
    for (const bad of ["lexicon", "lexicons=2G", "lexicon=-1", "lexicon=2Q", "model=0"]) {
      expect(() => parseInputCaps(bad)).toThrow(/^LAGRANGE_MAX_INPUT: expected KIND=SIZE/);
    }
    for (const cap of Object.values(INPUT_SIZE_CAPS)) {
      expect(Number.isSafeInteger(cap) && cap > 0).toBe(true);
    }
  });

  it("names the path and the reason when a file cannot be opened (a usage error)", async () => {
    const dir = await folder();
    const missing = await readInput(join(dir, "missing.conll")).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(InputFileError);
    expect((missing as InputFileError).errno).toBe("ENOENT");
    expect(lagrangeErrorCode(missing)).toBe("usage");
    expect((missing as Error).message).toBe(`${join(dir, "missing.conll")}: no such file`);
    const directory = await readInput(dir).catch((e: unknown) => e);
    expect((directory as Error).message).toBe(`${dir}: is a directory; expected a file`);
    expect(() => checkInputFile(dir)).toThrow(`${dir}: is a directory; expected a file`);
    expect(() => checkInputFile(join(dir, "missing.conll"))).toThrow("no such file");
  });

  it("maps Node's errors to one reason each", () => {
    const reason = (code: string) =>
      inputFileError("x.conll", Object.assign(new Error(`${code}: …, open 'x.conll'`), { code }))
        .message;
    expect(reason("EACCES")).toBe("x.conll: cannot be read (permission denied)");
    expect(reason("EPERM")).toBe("x.conll: cannot be read (permission denied)");
    expect(reason("ENOENT")).toBe("x.conll: no such file");
    expect(reason("EISDIR")).toBe("x.conll: is a directory; expected a file");
    expect(reason("ENOTDIR")).toBe("x.conll: cannot be read (a part of the path is not a folder)");
    expect(reason("ELOOP")).toBe("x.conll: cannot be read (too many levels of symbolic links)");
    const io = inputFileError(
      "x.conll",
      Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" }),
    );
    expect(io.message).toBe("x.conll: cannot be read (i/o error)");
    expect(io.errno).toBe("EIO");
  });

  it.skipIf(!posix || (isRoot && process.platform !== "linux") || nobodyBlocked !== undefined)(
    `as an unprivileged user (uid ${NOBODY} when the tests run as root): an unreadable file and one in a folder that cannot be searched are "permission denied"${nobodyBlocked === undefined ? "" : ` (skipped: ${nobodyBlocked})`}`,
    async () => {
      const dir = await folder();
      await chmod(dir, 0o755);
      const unreadable = join(dir, "unreadable.conll");
      await writeFile(unreadable, "a B\n");
      await chmod(unreadable, 0o000);
      await mkdir(join(dir, "closed"));
      const hidden = join(dir, "closed", "data.conll");
      await writeFile(hidden, "a B\n");
      await chmod(join(dir, "closed"), 0o600);
      const script = join(dir, "check.mjs");
      await writeFile(
        script,
        childScript(
          [
            "for (const path of process.argv.slice(2)) {",
            "  try { input.checkInputFile(path); console.log('readable'); } catch (e) { console.log(e.message); }",
            "  try { await input.readInput(path); console.log('read'); } catch (e) { console.log(e.message); }",
            "}",
          ].join("\n"),
        ),
      );
      await chmod(script, 0o644);
      const run = spawnSync(process.execPath, ["--import", TSX, script, unreadable, hidden], {
        encoding: "utf8",
        cwd: dir,
        ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      });
      expect(run.stderr).toBe("");
      expect(run.stdout.trim().split("\n")).toEqual([
        `${unreadable}: cannot be read (permission denied)`,
        `${unreadable}: cannot be read (permission denied)`,
        `${hidden}: cannot be read (permission denied)`,
        `${hidden}: cannot be read (permission denied)`,
      ]);
    },
  );
});
