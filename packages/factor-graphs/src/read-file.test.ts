import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lagrangeErrorCode } from "@lagrange/core";
import { afterAll, describe, expect, it } from "vitest";
import { readFactorGraphFile } from "./read-file.js";

const dir = mkdtempSync(join(tmpdir(), "lagrange-fg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("readFactorGraphFile", () => {
  it("picks the format from the extension, or as told", async () => {
    const fg = join(dir, "g.fg");
    writeFileSync(fg, "2\n1\n0.5\n-0.5\nXOR 2 1 2\n");
    expect((await readFactorGraphFile(fg)).format).toBe("ad3");
    const uai = join(dir, "g.uai");
    writeFileSync(uai, "MARKOV\n1\n2\n1\n1 0\n2\n1 3\n");
    expect((await readFactorGraphFile(uai)).format).toBe("uai");
    const other = join(dir, "g.txt");
    writeFileSync(other, "MARKOV\n1\n2\n1\n1 0\n2\n1 3\n");
    expect((await readFactorGraphFile(other, "uai")).problem.variables).toBe(2);
  });

  it("names the path in errors: usage when it cannot be read, bad-input with the line when malformed", async () => {
    const missing = join(dir, "missing.fg");
    await expect(readFactorGraphFile(missing)).rejects.toSatisfy(
      (error: Error) => lagrangeErrorCode(error) === "usage" && error.message.includes(missing),
    );
    const bad = join(dir, "bad.fg");
    writeFileSync(bad, "2\n1\n0.5\n-0.5\nXOR 2 1 3\n");
    await expect(readFactorGraphFile(bad)).rejects.toThrow(`${bad}:5: expected variable id 2`);
  });
});
