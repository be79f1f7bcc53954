import { describe, expect, it } from "vitest";
import { parseShardJobData, parseTagJobSpec, printable, shardOfJobId } from "./spec.js";

const SHA = "a".repeat(64);
const VALID = {
  modelSource: "redis",
  model: "ner.model",
  modelSha256: SHA,
  modelBytes: 1234,
  data: "corpus.conll",
  format: "conll",
};

/** The message a spec with `changes` is refused with. */
function refusal(changes: Record<string, unknown>, remove: readonly string[] = []): string {
  const spec: Record<string, unknown> = { ...VALID, ...changes };
  for (const field of remove) delete spec[field];
  try {
    parseTagJobSpec(JSON.stringify(spec), "j1");
  } catch (error) {
    expect((error as { code?: string }).code).toBe("bad-input");
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("parseTagJobSpec: a job's spec is read from Redis, so every field is checked", () => {
  it("accepts what submit writes", () => {
    expect(parseTagJobSpec(JSON.stringify(VALID), "j1")).toEqual(VALID);
    const full = {
      ...VALID,
      modelSource: "model-dir",
      model: "models/ner.model",
      decoder: "soft-dd",
      constraints: { source: "c.txt", text: "x" },
      unlabeled: true,
    };
    expect(parseTagJobSpec(JSON.stringify(full), "j1")).toEqual(full);
  });

  it("reads the constraints of a job an earlier lagrange queued (text and file name apart)", () => {
    const earlier = { ...VALID, constraints: "x", constraintsSource: "c.txt" };
    expect(parseTagJobSpec(JSON.stringify(earlier), "j1")).toEqual({
      ...VALID,
      constraints: { source: "c.txt", text: "x" },
    });
    expect(refusal({ constraints: { source: "c.txt" } })).toMatch(
      /constraints: expected a file's name \(source\) and its text of at most/,
    );
    expect(
      refusal({ constraints: { source: "c.txt", text: "x", plugin: "/tmp/evil.js" } }),
    ).toMatch(/constraints: expected /);
  });

  it("names the field of a wrong type, never quoting its value", () => {
    expect(refusal({ model: 42 })).toBe(
      "job j1: its spec: model: expected a name of 1 to 4096 printable characters, found the number 42",
    );
    // The old crash: "model.startsWith is not a function".
    expect(refusal({ model: { startsWith: 1 } })).toMatch(
      /^job j1: its spec: model: .*found an object$/,
    );
    expect(refusal({ modelSha256: "xyz" })).toMatch(/modelSha256: expected 64 lower-case/);
    expect(refusal({ modelBytes: 1e300 })).toMatch(/modelBytes: .*found a number out of range/);
    expect(refusal({ modelBytes: -1 })).toMatch(/modelBytes: /);
    expect(refusal({ format: ["conll"] })).toMatch(
      /format: expected one of conll, conllu, inline, found an array of 1/,
    );
    expect(refusal({ unlabeled: "yes" })).toMatch(/unlabeled: expected true or false/);
    expect(refusal({ decoder: "evil" })).toMatch(/decoder: expected one of viterbi, /);
    expect(refusal({ data: "x\u001b[2Jy" })).toMatch(
      /data: expected a file name, found a string of 6 characters/,
    );
    const secret = "root:$6$saltsalt$hash";
    expect(refusal({ data: secret.repeat(1000) })).not.toContain("root:");
  });

  it("names a missing field", () => {
    expect(refusal({}, ["modelSource", "model"])).toMatch(
      /modelSource: expected one of redis, model-dir, url, found nothing/,
    );
    expect(refusal({}, ["format"])).toMatch(/format: .*found nothing/);
    expect(refusal({ constraintsSource: "c.txt" })).toMatch(
      /constraintsSource: expected constraints beside it/,
    );
  });

  it("refuses fields it does not know, plug-ins by name", () => {
    expect(refusal({ plugin: "/tmp/evil.js" })).toBe(
      'job j1: its spec: "plugin": not a field of a job\'s spec (queue workers never load plug-ins)',
    );
    expect(refusal({ extra: 1 })).toMatch(/"extra": not a field/);
  });

  it("refuses paths that leave the model directory by their own components, and non-http URLs", () => {
    for (const model of ["/etc/shadow", "../../etc/shadow", "a/../../b", "C:\\x", "\\\\host\\x"]) {
      expect(refusal({ modelSource: "model-dir", model })).toMatch(
        /model: expected a path relative/,
      );
    }
    expect(refusal({ modelSource: "url", model: "file:///etc/shadow" })).toMatch(
      /model: expected an http:\/\/ or https:\/\/ URL/,
    );
  });

  it("says what an older lagrange's spec is, and that JSON is expected", () => {
    expect(refusal({ model: "/shared/m.model" }, ["modelSource"])).toMatch(
      /modelSource: missing \(a job submitted by an earlier lagrange/,
    );
    expect(() => parseTagJobSpec("{", "j1")).toThrow("job j1: its spec is not JSON");
    expect(() => parseTagJobSpec("[]", "j1")).toThrow(
      "spec: expected an object, found an array of 0",
    );
  });
});

describe("parseShardJobData", () => {
  const data = { job: "j1", submission: "0123456789ab", index: 3, firstLine: 10, sentences: 2 };

  it("accepts what submit queues and names the wrong field otherwise", () => {
    expect(parseShardJobData(data, "j1/0123456789ab/3")).toEqual(data);
    expect(() => parseShardJobData({ ...data, index: "3" }, "x")).toThrow(
      'shard job "x": index: expected a shard number, found a string of 1 character',
    );
    expect(() => parseShardJobData({ ...data, job: "../x" }, "x")).toThrow(
      /job: expected a job name/,
    );
    expect(() => parseShardJobData({ ...data, submission: undefined }, "x")).toThrow(
      /submission: /,
    );
    expect(() => parseShardJobData({ ...data, firstLine: 2 ** 60 }, "x")).toThrow(/firstLine: /);
    expect(() => parseShardJobData(null, "x")).toThrow(/data: expected an object, found null/);
    // The id is a key no one rewrites in place: data that names another shard is refused.
    expect(() => parseShardJobData({ ...data, index: 4 }, "j1/0123456789ab/3")).toThrow(
      'shard job "j1/0123456789ab/3": its data names another shard than its id',
    );
  });

  it("reads a shard's job, submission and index off its BullMQ id", () => {
    expect(shardOfJobId("j1/0123456789ab/3")).toEqual({
      job: "j1",
      submission: "0123456789ab",
      index: 3,
    });
    for (const id of [undefined, "j1/3", "j1/0123456789ab/x", "../x/0123456789ab/1", "a/b/c/d"]) {
      expect(shardOfJobId(id)).toBeUndefined();
    }
  });
});

describe("printable", () => {
  it("defuses terminal escape sequences and keeps lines", () => {
    expect(printable("a\u001b[2Jb\tc\nd\u0007")).toBe("a?[2Jb\tc\nd?");
  });
});
