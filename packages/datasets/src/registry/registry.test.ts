import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DATASETS, DatasetFormat, type DatasetInfo, getDataset, getSplit } from "./catalog.js";
import { DatasetChecksumError, DatasetUnavailableError } from "./errors.js";
import {
  type DownloadProgress,
  findMirrorDir,
  findSplitFile,
  locateSplit,
  resolveSplit,
  sha256File,
} from "./resolve.js";
import { extractZipMember } from "./zip.js";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const md5 = (data: Buffer) => createHash("md5").update(data).digest("hex");

const TRAIN_TEXT = "EU NNP B-NP\nrejects VBZ B-VP\n\nGerman JJ B-NP\n";
const DEV_TEXT = "call NN B-NP\n";

/** A zip archive with one deflated member, written the way NLTK's archives are. */
function makeZip(member: string, content: Buffer): Buffer {
  const name = Buffer.from(member);
  const data = deflateRawSync(content);
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42);
  const centralOffset = local.length + name.length + data.length;
  const centralSize = central.length + name.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}

const ZIP = makeZip("toy/dev.txt", Buffer.from(DEV_TEXT));

type Route =
  | { readonly kind: "ok"; readonly body: Buffer }
  /** Sends the first half of the body and then nothing, keeping the connection open. */
  | { readonly kind: "stall"; readonly body: Buffer }
  | { readonly kind: "truncated"; readonly body: Buffer; readonly claimedLength: number };

const routes = new Map<string, Route>();
let server: Server;
let baseUrl: string;
let requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const route = routes.get(req.url ?? "");
    if (route === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (route.kind === "ok") {
      res.writeHead(200, { "content-length": route.body.length }).end(route.body);
      return;
    }
    if (route.kind === "stall") {
      res.writeHead(200, { "content-length": route.body.length });
      res.write(route.body.subarray(0, Math.floor(route.body.length / 2)));
      return;
    }
    res.writeHead(200, { "content-length": route.claimedLength });
    res.write(route.body.subarray(0, Math.floor(route.body.length / 2)), () => {
      setTimeout(() => res.socket?.destroy(), 20);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

const scratch: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lagrange-registry-"));
  scratch.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
  routes.clear();
  requests = [];
});

function toyCatalog(): DatasetInfo[] {
  return [
    {
      name: "toy",
      title: "toy corpus",
      folder: "toy_folder",
      format: DatasetFormat.conll,
      formatOptions: { columns: ["word", "pos", "chunk"], separator: " ", scheme: "IOB2" },
      splits: [
        {
          name: "train",
          file: "train.txt",
          sha256: sha256(TRAIN_TEXT),
          bytes: Buffer.byteLength(TRAIN_TEXT),
          sources: [{ kind: "file", url: `${baseUrl}/canonical/train.txt` }],
        },
        {
          name: "dev",
          file: "dev.txt",
          sha256: sha256(DEV_TEXT),
          sources: [
            { kind: "file", url: `${baseUrl}/gone/dev.txt` },
            { kind: "zip", url: `${baseUrl}/toy.zip`, archiveMd5: md5(ZIP), member: "toy/dev.txt" },
          ],
        },
        {
          name: "test",
          file: "test.txt",
          sha256: sha256("x"),
          sources: [{ kind: "file", url: `${baseUrl}/canonical/test.txt` }],
          sealed: true,
        },
      ],
      licence: "test data",
      redistributable: true,
      citation: "none",
    },
  ];
}

/** Options that never touch the real mirror or the user's cache. */
function isolated(extra: { mirrorDir?: string | null } = {}) {
  const cache = tempDir();
  return {
    catalog: toyCatalog(),
    mirrorDir: extra.mirrorDir === undefined ? null : extra.mirrorDir,
    cacheDir: cache,
    env: {},
    cache,
  };
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

describe("download into the cache", () => {
  it("downloads, checks the SHA-256, reports progress and lands in <cache>/<folder>/<file>", async () => {
    const { cache, ...options } = isolated();
    routes.set("/canonical/train.txt", { kind: "ok", body: Buffer.from(TRAIN_TEXT) });
    const progress: DownloadProgress[] = [];
    const result = await resolveSplit("toy", "train", {
      ...options,
      onProgress: (p) => progress.push(p),
    });
    expect(result.status).toBe("available");
    if (result.status !== "available") return;
    expect(result.source).toBe("download");
    expect(result.path).toBe(join(cache, "toy_folder", "train.txt"));
    expect(readFileSync(result.path, "utf8")).toBe(TRAIN_TEXT);
    expect(filesUnder(cache)).toEqual(["train.txt"]);
    const last = progress.at(-1)!;
    expect(last.receivedBytes).toBe(Buffer.byteLength(TRAIN_TEXT));
    expect(last.totalBytes).toBe(Buffer.byteLength(TRAIN_TEXT));
    expect(
      progress.every((p, i) => i === 0 || p.receivedBytes >= progress[i - 1]!.receivedBytes),
    ).toBe(true);

    const again = await resolveSplit("toy", "train", options);
    expect(again.status === "available" && again.source).toBe("cache");
    expect(requests).toEqual(["/canonical/train.txt"]);
  });

  it("rejects a body whose SHA-256 differs and leaves the cache clean", async () => {
    const { cache, ...options } = isolated();
    const wrong = TRAIN_TEXT.replace("EU", "UE");
    routes.set("/canonical/train.txt", { kind: "ok", body: Buffer.from(wrong) });
    const failure = resolveSplit("toy", "train", options);
    await expect(failure).rejects.toBeInstanceOf(DatasetChecksumError);
    await expect(failure).rejects.toThrow(/SHA-256 [0-9a-f]{64}, expected [0-9a-f]{64}/);
    expect(filesUnder(cache)).toEqual([]);
  });

  it("rejects a truncated transfer (connection cut mid-body) and leaves the cache clean", async () => {
    const { cache, ...options } = isolated();
    routes.set("/canonical/train.txt", {
      kind: "truncated",
      body: Buffer.from(TRAIN_TEXT),
      claimedLength: Buffer.byteLength(TRAIN_TEXT),
    });
    const failure = resolveSplit("toy", "train", options);
    await expect(failure).rejects.toBeInstanceOf(DatasetUnavailableError);
    await expect(failure).rejects.toThrow(/(broke off|truncated).*train\.txt/);
    expect(filesUnder(cache)).toEqual([]);
  });

  it("reports HTTP 404 with the URL and where to put the file", async () => {
    const { cache, ...options } = isolated();
    const failure = resolveSplit("toy", "train", options);
    await expect(failure).rejects.toThrow(/HTTP 404/);
    await expect(failure).rejects.toThrow(join(cache, "toy_folder", "train.txt"));
    expect(filesUnder(cache)).toEqual([]);
  });

  it("falls back to the next source: a 404, then a zip archive checked by MD5", async () => {
    const { cache, ...options } = isolated();
    routes.set("/toy.zip", { kind: "ok", body: ZIP });
    const result = await resolveSplit("toy", "dev", options);
    expect(result.status === "available" && result.source).toBe("download");
    expect(readFileSync(join(cache, "toy_folder", "dev.txt"), "utf8")).toBe(DEV_TEXT);
    expect(requests).toEqual(["/gone/dev.txt", "/toy.zip"]);
  });

  it("rejects a zip archive whose MD5 differs", async () => {
    const { cache, ...options } = isolated();
    const tampered = Buffer.from(ZIP);
    tampered[tampered.length - 1] = 1;
    routes.set("/toy.zip", { kind: "ok", body: tampered });
    await expect(resolveSplit("toy", "dev", options)).rejects.toThrow(/archive MD5/);
    expect(filesUnder(cache)).toEqual([]);
  });

  it("downloads from a base URL laid out like the mirror", async () => {
    const { cache, ...options } = isolated();
    routes.set("/mirror/toy_folder/train.txt", { kind: "ok", body: Buffer.from(TRAIN_TEXT) });
    const result = await resolveSplit("toy", "train", {
      ...options,
      downloadBaseUrl: `${baseUrl}/mirror/`,
    });
    expect(result.status === "available" && result.path).toBe(
      join(cache, "toy_folder", "train.txt"),
    );
  });

  it("passes the AbortSignal to fetch and stops", async () => {
    const { cache, ...options } = isolated();
    routes.set("/canonical/train.txt", { kind: "ok", body: Buffer.from(TRAIN_TEXT) });
    const controller = new AbortController();
    controller.abort();
    await expect(
      resolveSplit("toy", "train", { ...options, signal: controller.signal }),
    ).rejects.toThrow(/abort/i);
    expect(filesUnder(cache)).toEqual([]);
    expect(requests).toEqual([]);
  });

  it("aborts a transfer in progress and leaves the cache clean", async () => {
    const { cache, ...options } = isolated();
    routes.set("/canonical/train.txt", { kind: "stall", body: Buffer.from(TRAIN_TEXT) });
    const controller = new AbortController();
    const failure = resolveSplit("toy", "train", {
      ...options,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.receivedBytes > 0) controller.abort();
      },
    });
    await expect(failure).rejects.toThrow(/abort/i);
    expect(filesUnder(cache)).toEqual([]);
  });

  it("reports a checksum mismatch even when another source failed first", async () => {
    const { cache, ...options } = isolated();
    routes.set("/toy.zip", { kind: "ok", body: makeZip("toy/dev.txt", Buffer.from("changed\n")) });
    const catalog = options.catalog.map((d) => ({
      ...d,
      splits: d.splits.map((s) =>
        s.name === "dev"
          ? {
              ...s,
              sources: s.sources.map((src) =>
                src.kind === "zip"
                  ? { ...src, archiveMd5: md5(makeZip("toy/dev.txt", Buffer.from("changed\n"))) }
                  : src,
              ),
            }
          : s,
      ),
    }));
    const failure = resolveSplit("toy", "dev", { ...options, catalog });
    await expect(failure).rejects.toBeInstanceOf(DatasetChecksumError);
    await expect(failure).rejects.toThrow(/HTTP 404.*SHA-256 [0-9a-f]{64}, expected/);
    expect(filesUnder(cache)).toEqual([]);
  });

  it("offline, keeps a damaged cache file (nothing could replace it) and names it and the checksum", async () => {
    const { cache, ...options } = isolated();
    mkdirSync(join(cache, "toy_folder"));
    const path = join(cache, "toy_folder", "train.txt");
    writeFileSync(path, "damaged");
    const failure = resolveSplit("toy", "train", { ...options, offline: true });
    await expect(failure).rejects.toBeInstanceOf(DatasetChecksumError);
    await expect(failure).rejects.toMatchObject({ code: "unavailable" });
    await expect(failure).rejects.toThrow(
      `toy train: the cached copy ${path} has SHA-256 ${sha256("damaged")}, expected ${sha256(TRAIN_TEXT)}; it was kept (offline, nothing could replace it)`,
    );
    expect(readFileSync(path, "utf8")).toBe("damaged");
  });

  it("online, keeps a damaged cache file when no good copy can be downloaded", async () => {
    const { cache, ...options } = isolated();
    mkdirSync(join(cache, "toy_folder"));
    const path = join(cache, "toy_folder", "train.txt");
    writeFileSync(path, "damaged");
    const failure = resolveSplit("toy", "train", options);
    await expect(failure).rejects.toThrow(/the damaged copy at .*train\.txt.* was kept/);
    expect(readFileSync(path, "utf8")).toBe("damaged");
  });

  it("re-downloads a cache file that fails its checksum", async () => {
    const { cache, ...options } = isolated();
    mkdirSync(join(cache, "toy_folder"));
    writeFileSync(join(cache, "toy_folder", "train.txt"), "damaged");
    routes.set("/canonical/train.txt", { kind: "ok", body: Buffer.from(TRAIN_TEXT) });
    const result = await resolveSplit("toy", "train", options);
    expect(result.status === "available" && result.source).toBe("download");
    expect(readFileSync(join(cache, "toy_folder", "train.txt"), "utf8")).toBe(TRAIN_TEXT);
  });
});

describe("resolution order", () => {
  it("takes the mirror over the cache, and the cache over a download", async () => {
    const mirror = tempDir();
    const { cache, ...options } = isolated({ mirrorDir: mirror });
    mkdirSync(join(mirror, "toy_folder"));
    mkdirSync(join(cache, "toy_folder"));
    routes.set("/canonical/train.txt", { kind: "ok", body: Buffer.from(TRAIN_TEXT) });

    writeFileSync(join(cache, "toy_folder", "train.txt"), TRAIN_TEXT);
    const fromCache = await resolveSplit("toy", "train", options);
    expect(fromCache.status === "available" && fromCache.source).toBe("cache");

    writeFileSync(join(mirror, "toy_folder", "train.txt"), TRAIN_TEXT);
    const fromMirror = await resolveSplit("toy", "train", { ...options, verifyMirror: true });
    expect(fromMirror.status === "available" && fromMirror.path).toBe(
      join(mirror, "toy_folder", "train.txt"),
    );
    expect(requests).toEqual([]);
  });

  it("finds the mirror through LAGRANGE_DATA_DIR", () => {
    const mirror = tempDir();
    const { cache: _cache, mirrorDir: _m, ...options } = isolated();
    mkdirSync(join(mirror, "toy_folder"));
    writeFileSync(join(mirror, "toy_folder", "train.txt"), TRAIN_TEXT);
    const env = { LAGRANGE_DATA_DIR: mirror };
    expect(findMirrorDir({ env })).toBe(mirror);
    expect(findSplitFile("toy", "train", { ...options, env })).toBe(
      join(mirror, "toy_folder", "train.txt"),
    );
  });

  it("refuses a configured mirror that is not a directory, naming the setting", () => {
    expect(() => findMirrorDir({ env: { LAGRANGE_DATA_DIR: "/nonexistent/lagrange" } })).toThrow(
      /LAGRANGE_DATA_DIR=\/nonexistent\/lagrange is not a directory/,
    );
  });

  it("rejects a mirror file of the wrong size", () => {
    const mirror = tempDir();
    const { cache: _cache, ...options } = isolated({ mirrorDir: mirror });
    mkdirSync(join(mirror, "toy_folder"));
    writeFileSync(join(mirror, "toy_folder", "train.txt"), `${TRAIN_TEXT}extra`);
    expect(() => locateSplit("toy", "train", options)).toThrow(/bytes, expected/);
  });

  it("reports a sealed split missing from the mirror as absent, without a download", async () => {
    const mirror = tempDir();
    const { cache: _cache, ...options } = isolated({ mirrorDir: mirror });
    routes.set("/canonical/test.txt", { kind: "ok", body: Buffer.from("x") });
    const result = await resolveSplit("toy", "test", options);
    expect(result.status).toBe("absent");
    if (result.status === "absent") expect(result.message).toMatch(/sealed test split/);
    expect(requests).toEqual([]);
    const opened = await resolveSplit("toy", "test", { ...options, includeSealed: true });
    expect(opened.status === "available" && opened.source).toBe("download");
  });

  it("a sealed split with no published SHA-256: a zip download is vouched for by its MD5, a plain file refused", async () => {
    const { cache, ...options } = isolated();
    const toy = toyCatalog()[0]!;
    const catalog: DatasetInfo[] = [
      {
        ...toy,
        splits: [
          {
            name: "test",
            file: "dev.txt",
            sources: [
              { kind: "file", url: `${baseUrl}/canonical/dev.txt` },
              {
                kind: "zip",
                url: `${baseUrl}/toy.zip`,
                archiveMd5: md5(ZIP),
                member: "toy/dev.txt",
              },
            ],
            sealed: true,
          },
        ],
      },
    ];
    routes.set("/canonical/dev.txt", { kind: "ok", body: Buffer.from(DEV_TEXT) });
    routes.set("/toy.zip", { kind: "ok", body: ZIP });
    const result = await resolveSplit("toy", "test", { ...options, catalog, includeSealed: true });
    expect(result.status === "available" && result.source).toBe("download");
    expect(readFileSync(join(cache, "toy_folder", "dev.txt"), "utf8")).toBe(DEV_TEXT);
    expect(requests).toEqual(["/toy.zip"]);
    // Found again in the cache: taken as it is (nothing to hash it against).
    const again = await resolveSplit("toy", "test", { ...options, catalog, includeSealed: true });
    expect(again.status === "available" && again.source).toBe("cache");
    const fileOnly: DatasetInfo[] = [
      {
        ...catalog[0]!,
        splits: [
          {
            ...catalog[0]!.splits[0]!,
            sealed: true,
            sources: [{ kind: "file", url: `${baseUrl}/canonical/dev.txt` }],
          },
        ],
      },
    ];
    const other = isolated();
    await expect(
      resolveSplit("toy", "test", { ...other, catalog: fileOnly, includeSealed: true }),
    ).rejects.toThrow(/no published SHA-256 and a plain file cannot be verified otherwise/);
    expect(filesUnder(other.cache)).toEqual([]);
  });

  it("offline with no copy: names the file, its checksum, where to put it and the URL", async () => {
    const mirror = tempDir();
    const { cache, ...options } = isolated({ mirrorDir: mirror });
    const failure = resolveSplit("toy", "train", { ...options, env: { LAGRANGE_OFFLINE: "1" } });
    await expect(failure).rejects.toBeInstanceOf(DatasetUnavailableError);
    const error = (await failure.catch((e: unknown) => e)) as DatasetUnavailableError;
    expect(error.message).toContain("train.txt");
    expect(error.message).toContain(join(mirror, "toy_folder", "train.txt"));
    expect(error.message).toContain(join(cache, "toy_folder", "train.txt"));
    expect(error.message).toContain(`${baseUrl}/canonical/train.txt`);
    expect(error.destinations).toEqual([
      join(mirror, "toy_folder", "train.txt"),
      join(cache, "toy_folder", "train.txt"),
    ]);
    expect(requests).toEqual([]);
  });

  it("names the known datasets and splits when asked for an unknown one", () => {
    expect(() => getDataset("conll2001")).toThrow(/known: conll2000, conll2003/);
    expect(() => getSplit("conll2000", "dev")).toThrow(/its splits: train, test/);
  });
});

describe("zip extraction", () => {
  it("reports a missing member and a non-zip input", () => {
    expect(extractZipMember(ZIP, "toy/dev.txt", "z").toString()).toBe(DEV_TEXT);
    expect(() => extractZipMember(ZIP, "toy/train.txt", "z")).toThrow(/no member toy\/train.txt/);
    expect(() => extractZipMember(Buffer.alloc(64), "a", "z")).toThrow(/not a zip archive/);
  });
});

describe("the registry itself", () => {
  it("has the datasets the project needs, each with well-formed checksums and URLs", () => {
    const names = DATASETS.map((d) => d.name);
    for (const needed of [
      "conll2000",
      "conll2003",
      "ud-en-ewt",
      "umass-citations",
      "umass-citations-flat",
      "wnut16",
      "wnut17",
      "cora-references",
      "cora-headers",
      "conll2002-es",
      "conll2002-nl",
    ]) {
      expect(names).toContain(needed);
    }
    expect(new Set(names).size).toBe(names.length);
    for (const dataset of DATASETS) {
      expect(Object.values(DatasetFormat)).toContain(dataset.format);
      for (const split of dataset.splits) {
        // Only a sealed split may lack a checksum (none published), and then it must come from
        // an archive whose MD5 is known, so that a download is still verified.
        if (split.sealed !== true || split.sha256 !== undefined) {
          expect(split.sha256, `${dataset.name} ${split.name}`).toMatch(/^[0-9a-f]{64}$/);
        } else {
          expect(split.sources.every((s) => s.kind === "zip")).toBe(true);
        }
        for (const source of split.sources) {
          if (source.kind === "zip") expect(source.archiveMd5).toMatch(/^[0-9a-f]{32}$/);
        }
        expect(split.sources.length).toBeGreaterThan(0);
        for (const source of split.sources) {
          expect(source.url).toMatch(
            /^https:\/\/raw\.githubusercontent\.com\/[\w.-]+\/[\w.-]+\/[0-9a-f]{40}\//,
          );
        }
      }
    }
  });
});

const realMirror = findMirrorDir();

describe("the shared mirror", () => {
  it.skipIf(realMirror === undefined)(
    "resolves every non-sealed split and matches its SHA-256 (skipped when no mirror is found)",
    async () => {
      let checked = 0;
      for (const dataset of DATASETS) {
        for (const split of dataset.splits) {
          const found = locateSplit(dataset.name, split.name, { mirrorDir: realMirror! });
          if (split.sealed === true) {
            expect(found.status === "available" || found.status === "absent").toBe(true);
            continue;
          }
          expect(found.status, `${dataset.name} ${split.name}`).toBe("available");
          if (found.status !== "available") continue;
          expect(found.source).toBe("mirror");
          expect(await sha256File(found.path), found.path).toBe(split.sha256);
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(17);
    },
  );
});
