import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelAccess, readRegularFile, readSpecModel } from "./model-access.js";
import type { TagJobSpec } from "./spec.js";
import { sha256Hex } from "./tag-shard.js";

const isRoot = process.getuid?.() === 0;
const SECRET = "root:$6$SECRET-MARKER$hash";
const MODEL = Buffer.from("a model's bytes");

let dir: string;
let modelDir: string;
let server: Server;
let hits = 0;
let lastAuthorization: string | undefined;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lagrange-model-access-"));
  modelDir = join(dir, "models");
  mkdirSync(join(modelDir, "sub"), { recursive: true });
  writeFileSync(join(modelDir, "sub", "m.model"), MODEL);
  writeFileSync(join(dir, "shadow"), SECRET);
  chmodSync(join(dir, "shadow"), 0o600);
  symlinkSync(join(dir, "shadow"), join(modelDir, "link-out"));
  symlinkSync("/dev/zero", join(modelDir, "zero"));
  symlinkSync(join(modelDir, "sub", "m.model"), join(modelDir, "link-in"));
  execFileSync("mkfifo", [join(modelDir, "pipe")]);
  server = createServer((request, response) => {
    hits++;
    lastAuthorization = request.headers.authorization;
    if (request.url?.startsWith("/redirect")) {
      response.writeHead(302, { location: "/m" }).end();
      return;
    }
    // Endless: a body that never ends unless the reader stops.
    if (request.url === "/endless") {
      const chunk = Buffer.alloc(64 * 1024);
      const write = () => {
        while (response.write(chunk)) {}
      };
      response.on("drain", write);
      write();
      return;
    }
    response.end(MODEL);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function spec(changes: Partial<TagJobSpec>): TagJobSpec {
  return {
    modelSource: "model-dir",
    model: "sub/m.model",
    modelSha256: sha256Hex(MODEL),
    modelBytes: MODEL.length,
    data: "corpus.conll",
    format: "conll",
    ...changes,
  };
}

/** No Redis here: only specs that never reach it. */
const access = (changes: Partial<ModelAccess> = {}): ModelAccess => ({
  client: {} as Redis,
  queue: "q",
  modelDir,
  ...changes,
});

async function refusal(s: TagJobSpec, a: ModelAccess = access()): Promise<string> {
  try {
    await readSpecModel(s, a);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("read");
}

describe("readRegularFile: regular files under a cap, nothing else, never blocking", () => {
  it.skipIf(!process.platform.startsWith("linux"))(
    "refuses /dev/zero before reading a byte",
    async () => {
      await expect(readRegularFile("/dev/zero", { maxBytes: 1024, what: "m" })).rejects.toThrow(
        "m: not a regular file (a character device)",
      );
    },
  );

  it("refuses a FIFO with no writer at once (open does not block)", async () => {
    await expect(
      readRegularFile(join(modelDir, "pipe"), { maxBytes: 1024, what: "m" }),
    ).rejects.toThrow("m: not a regular file (a FIFO)");
  });

  it("refuses a directory, a file above the cap, and a symlink when told not to follow", async () => {
    await expect(readRegularFile(modelDir, { maxBytes: 1024, what: "m" })).rejects.toThrow(
      /m: (not a regular file \(a directory\)|cannot open it \(EISDIR\))/,
    );
    await expect(
      readRegularFile(join(modelDir, "sub", "m.model"), { maxBytes: 4, what: "m" }),
    ).rejects.toThrow(`m: ${MODEL.length} bytes, above the cap of 4 bytes`);
    await expect(
      readRegularFile(join(modelDir, "link-in"), { maxBytes: 1024, what: "m", noFollow: true }),
    ).rejects.toThrow("m: a symbolic link");
    expect(
      Buffer.from(await readRegularFile(join(modelDir, "link-in"), { maxBytes: 1024, what: "m" })),
    ).toEqual(MODEL);
  });
});

describe("readSpecModel: a spec names a model; the worker decides what it may read", () => {
  it("reads a model inside the model directory, symlinks inside it included", async () => {
    expect(Buffer.from(await readSpecModel(spec({}), access()))).toEqual(MODEL);
    expect(Buffer.from(await readSpecModel(spec({ model: "link-in" }), access()))).toEqual(MODEL);
  });

  it("refuses a symlink that leaves the directory, to a secret or to /dev/zero, without quoting either", async () => {
    const out = await refusal(spec({ model: "link-out", modelBytes: SECRET.length }));
    expect(out).toBe("model link-out: outside this worker's model directory");
    expect(await refusal(spec({ model: "zero" }))).toBe(
      "model zero: outside this worker's model directory",
    );
  });

  it("refuses absolute paths and a FIFO in the directory, and a model-dir job on a worker without one", async () => {
    expect(await refusal(spec({ model: "/etc/passwd" }))).toMatch(/not a path relative/);
    expect(await refusal(spec({ model: "pipe" }))).toBe("model pipe: not a regular file (a FIFO)");
    expect(await refusal(spec({ model: "absent" }))).toMatch(
      /model absent: not in this worker's model directory \(ENOENT\)/,
    );
    const { modelDir: _, ...without } = access();
    expect(await refusal(spec({}), without)).toMatch(/this worker was given none/);
  });

  it.skipIf(!isRoot)("as root, refuses a device inside the directory (mknod)", async () => {
    execFileSync("mknod", [join(modelDir, "null"), "c", "1", "3"]);
    expect(await refusal(spec({ model: "null" }))).toBe(
      "model null: not a regular file (a character device)",
    );
  });

  it("checks size and checksum before anything parses the bytes, and quotes neither the content nor its checksum", async () => {
    writeFileSync(join(modelDir, "secret"), SECRET);
    const wrong = await refusal(spec({ model: "secret", modelBytes: SECRET.length }));
    expect(wrong).toBe(
      `model secret: its bytes do not match the checksum recorded at submission (sha256 ${sha256Hex(MODEL).slice(0, 12)}…); submit the job again`,
    );
    expect(wrong).not.toContain("SECRET-MARKER");
    expect(wrong).not.toContain(sha256Hex(SECRET).slice(0, 12));
    expect(await refusal(spec({ modelBytes: 2 ** 40 }))).toMatch(
      /above this worker's cap of 1024\.0 MiB/,
    );
  });

  it("never fetches a URL unless allowed; allowed, it stops at the cap", async () => {
    const before = hits;
    expect(await refusal(spec({ modelSource: "url", model: `${url}/steal` }))).toMatch(
      /this worker does not fetch models from URLs/,
    );
    expect(hits).toBe(before);
    expect(
      Buffer.from(
        await readSpecModel(
          spec({ modelSource: "url", model: `${url}/m` }),
          access({ allowUrls: true }),
        ),
      ),
    ).toEqual(MODEL);
    expect(
      await refusal(
        spec({ modelSource: "url", model: `${url}/endless`, modelBytes: 1000 }),
        access({ allowUrls: true, maxBytes: 1024 * 1024 }),
      ),
    ).toMatch(/more than the cap of 1\.0 MiB/);
  });

  it("sends a URL's user and password as HTTP Basic credentials, follows no redirect with them, and never quotes them", async () => {
    const withCredentials = url.replace("http://", "http://reader:p%40ss@");
    expect(
      Buffer.from(
        await readSpecModel(
          spec({ modelSource: "url", model: `${withCredentials}/m?token=t0ken` }),
          access({ allowUrls: true }),
        ),
      ),
    ).toEqual(MODEL);
    expect(lastAuthorization).toBe(`Basic ${Buffer.from("reader:p@ss").toString("base64")}`);
    const redirected = await refusal(
      spec({ modelSource: "url", model: `${withCredentials}/redirect?token=t0ken` }),
      access({ allowUrls: true }),
    );
    expect(redirected).toBe(
      `model ${url.replace("http://", "http://***:***@")}/redirect?token=***: cannot fetch it (fetch failed: unexpected redirect)`,
    );
    // Plain (no credentials): a redirect is followed as before.
    expect(
      Buffer.from(
        await readSpecModel(
          spec({ modelSource: "url", model: `${url}/redirect` }),
          access({ allowUrls: true }),
        ),
      ),
    ).toEqual(MODEL);
  });
});
