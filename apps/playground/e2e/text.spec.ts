import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { expect, type Page, test } from "@playwright/test";
import { CHROMIUM, chromiumMissing } from "../playwright.config.js";

const app = join(dirname(fileURLToPath(import.meta.url)), "..");
const shippedModel = join(app, "public", "ner-en.lgm.gz");

test.skip(
  chromiumMissing,
  `no Chromium at ${CHROMIUM}: install it (apt-get install chromium) to run the playground's browser tests`,
);

/** A news paragraph in the manner of CoNLL-2003's Reuters text: not the page's own example. */
const PARAGRAPH =
  "BRUSSELS (Reuters) - The European Union's farm ministers met in Luxembourg on Monday to discuss the ban on British beef, and Germany's agriculture minister, Jochen Borchert, said Bonn would not lift its own ban. Franz Fischler, the EU's farm commissioner, told reporters that the World Health Organisation had been asked for advice.";

interface Entity {
  readonly start: number;
  readonly end: number;
  readonly type: string;
  readonly text: string;
  readonly score: number;
}

async function entitiesShown(page: Page): Promise<Entity[]> {
  return page.locator("#text-marked mark.entity").evaluateAll((marks) =>
    marks.map((m) => {
      const d = (m as HTMLElement).dataset;
      return {
        start: Number(d.start),
        end: Number(d.end),
        type: d.type ?? "",
        text: m.querySelector(".entity-text")?.textContent ?? "",
        score: Number(d.score),
      };
    }),
  );
}

async function tagNow(page: Page, submit: () => Promise<void>): Promise<void> {
  const section = page.locator("#text-section");
  const before = Number((await section.getAttribute("data-tagged")) ?? 0);
  await submit();
  await expect
    .poll(async () => Number((await section.getAttribute("data-tagged")) ?? 0), {
      timeout: 30_000,
    })
    .toBeGreaterThan(before);
}

test("a pasted paragraph is tagged in the page: entities with offsets, types and scores, as lagrange tag gives them", async ({
  page,
}, testInfo) => {
  await page.goto("./");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  const input = page.locator("#text-input");
  await expect(input).not.toBeEmpty();
  await input.fill(PARAGRAPH);
  await tagNow(page, () => page.getByRole("button", { name: "Tag" }).click());
  await expect(page.locator("#text-error")).toBeHidden();
  await expect(page.locator("#text-model-info")).toContainText("ner-en.lgm.gz");

  const shown = await entitiesShown(page);
  for (const e of shown) {
    expect(PARAGRAPH.slice(e.start, e.end)).toBe(e.text);
    expect(e.score).toBeGreaterThan(0);
    expect(e.score).toBeLessThanOrEqual(1);
  }
  const found = shown.map((e) => `${e.text}/${e.type}`);
  expect(found).toEqual(
    expect.arrayContaining([
      "European Union/ORG",
      "Luxembourg/LOC",
      "British/MISC",
      "Jochen Borchert/PER",
      "Bonn/LOC",
      "Franz Fischler/PER",
      "World Health Organisation/ORG",
    ]),
  );
  // The type is written in each box, not shown by colour alone, and the table lists every entity.
  await expect(page.locator("#text-marked mark.entity .entity-tag").first()).toHaveText(
    /^[A-Z]+ \d\.\d{3}$/,
  );
  await expect(page.locator("#entity-table tbody tr")).toHaveCount(shown.length);
  const ms = Number(await page.locator("#text-ms").getAttribute("data-ms"));
  expect(ms).toBeGreaterThan(0);

  // The same model through the CLI's text path: the same entities and scores.
  const model = testInfo.outputPath("ner-en.lgm");
  await writeFile(model, gunzipSync(await readFile(shippedModel)));
  const cli = join(app, "..", "cli", "bin", "lagrange.mjs");
  const ndjson = execFileSync(
    process.execPath,
    [cli, "tag", "--model", model, "--text", PARAGRAPH, "--output-format", "ndjson"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const expected = ndjson
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Entity);
  expect(shown.map(({ start, end, type }) => ({ start, end, type }))).toEqual(
    expected.map(({ start, end, type }) => ({ start, end, type })),
  );
  for (const [i, e] of expected.entries()) expect(shown[i]!.score).toBeCloseTo(e.score, 4);

  await writeFile(testInfo.outputPath("text.png"), await page.screenshot({ fullPage: true }));
  // Figures to read, not timed assertions: the first tag warms up, the next ones are what a
  // reader waits for.
  const again: number[] = [];
  for (let k = 0; k < 5; k++) {
    await tagNow(page, () => page.getByRole("button", { name: "Tag" }).click());
    again.push(Number(await page.locator("#text-ms").getAttribute("data-ms")));
  }
  await mkdir(join(app, "test-results"), { recursive: true });
  await writeFile(
    join(app, "test-results", "text-timings.json"),
    `${JSON.stringify(
      {
        paragraphChars: PARAGRAPH.length,
        tokens: Number(await page.locator("#text-ms").getAttribute("data-tokens")),
        entities: shown.length,
        firstTagMs: ms,
        tagMsMedian: [...again].sort((a, b) => a - b)[again.length >> 1],
        tagMs: again,
      },
      null,
      2,
    )}\n`,
  );
});

test("a bad model upload shows the package's error, and the model loaded before still tags", async ({
  page,
}) => {
  await page.goto("./");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await tagNow(page, () => page.getByRole("button", { name: "Tag" }).click());
  const before = await entitiesShown(page);
  expect(before.length).toBeGreaterThan(0);
  await page.locator("#text-files summary").click();
  await page.locator("#text-model-file").setInputFiles({
    name: "broken.lgm",
    mimeType: "application/octet-stream",
    buffer: Buffer.from("this is not a model file"),
  });
  await expect(page.locator("#text-error")).toBeVisible();
  await expect(page.locator("#text-error")).toContainText("broken.lgm");
  await tagNow(page, () => page.getByRole("button", { name: "Tag" }).click());
  await expect(page.locator("#text-error")).toBeHidden();
  expect(await entitiesShown(page)).toEqual(before);
});
