import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type Page, test } from "@playwright/test";
import { CHROMIUM, chromiumMissing } from "../playwright.config.js";

const app = join(dirname(fileURLToPath(import.meta.url)), "..");
const shippedModel = join(app, "public", "citation.model");
const shippedConstraints = join(app, "public", "citation.constraints.json");
const timingsFile = join(app, "test-results", "timings.json");

test.skip(
  chromiumMissing,
  `no Chromium at ${CHROMIUM}: install it (apt-get install chromium) to run the playground's browser tests`,
);

/** The page's first example: the shipped model merges two authors; learned constraints split them. */
const CITATION =
  "J. D. Lafferty, A. K. McCallum, and F. C. N. Pereira, Conditional random fields: Probabilistic models for segmenting and labeling sequence data, in Proc. ICML, 2001, pp. 282-289.";

async function ready(page: Page): Promise<void> {
  await page.goto("./");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  await expect(page.locator("#error")).toBeHidden();
}

async function decodedCount(page: Page): Promise<number> {
  return Number((await page.locator("body").getAttribute("data-decoded")) ?? 0);
}

/** Submits and waits until the page has decoded once more. */
async function decodeNow(page: Page, submit: () => Promise<void>): Promise<void> {
  const before = await decodedCount(page);
  await submit();
  await expect.poll(() => decodedCount(page)).toBeGreaterThan(before);
}

test("a pasted citation shows Viterbi and constrained labels as nested spans", async ({
  page,
}, testInfo) => {
  const started = Date.now();
  await ready(page);
  const paint = await page.evaluate(
    () =>
      performance.getEntriesByType("paint").find((e) => e.name === "first-contentful-paint")
        ?.startTime ?? null,
  );
  await page.locator("#citation").fill(CITATION);
  await decodeNow(page, () => page.getByRole("button", { name: "Decode" }).click());
  const rows = page.locator(".spans");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute("data-row", /Viterbi/);
  await expect(rows.nth(1)).toHaveAttribute("data-row", /soft-dd/);
  for (const row of [rows.nth(0), rows.nth(1)]) {
    await expect(row.locator(".span[data-level='0']").first()).toBeVisible();
    // Nested fields: a person inside the authors, with its name written, not colour alone.
    await expect(row.locator(".span[data-level='1']").first()).toBeVisible();
    await expect(row.locator(".span-label").first()).not.toBeEmpty();
  }
  await expect(page.locator("#model-info")).toContainText("UMass");
  await expect(page.locator("#fired li").first()).toContainText("penalty");
  const labelsOf = (row: number) =>
    page.locator(".labelling").nth(row).locator(".token-labels li").allTextContents();
  expect(await labelsOf(0)).not.toEqual(await labelsOf(1));

  // Decode time: the median of a few decodes of the same citation (the first one warms up).
  const decodes: number[] = [];
  const totals: number[] = [];
  for (let k = 0; k < 7; k++) {
    await decodeNow(page, () => page.getByRole("button", { name: "Decode" }).click());
    decodes.push(Number(await page.locator("#decode-ms").getAttribute("data-ms")));
    totals.push(Number(await page.locator("#total-ms").getAttribute("data-ms")));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  await mkdir(dirname(timingsFile), { recursive: true });
  await writeFile(
    timingsFile,
    `${JSON.stringify(
      {
        firstContentfulPaintMs: paint,
        softDDDecodeMsMedian: median(decodes),
        softDDPipelineMsMedian: median(totals),
        decodeMs: decodes,
        pipelineMs: totals,
        tokens: await page.locator(".labelling").first().locator(".token-labels li").count(),
        measuredAt: new Date(started).toISOString(),
      },
      null,
      2,
    )}\n`,
  );
  const shot = await page.screenshot({ fullPage: true });
  await writeFile(testInfo.outputPath("pasted-citation.png"), shot);
  await page.setViewportSize({ width: 1200, height: 900 });
  await writeFile(join(app, "screenshot.png"), await page.locator("#results").screenshot());
});

test("every enabled decoder decodes; disabled ones say why", async ({ page }, testInfo) => {
  await ready(page);
  const radios = page.locator("#decoder-list input[type=radio]");
  const count = await radios.count();
  expect(count).toBeGreaterThanOrEqual(10);
  const enabled: string[] = [];
  const decodeMs: Record<string, number> = {};
  for (let k = 0; k < count; k++) {
    const radio = radios.nth(k);
    const name = (await radio.getAttribute("value"))!;
    const note = page.locator(`#decoder-${name}-note`);
    if (await radio.isDisabled()) {
      await expect(note).toContainText("Unavailable:");
      continue;
    }
    enabled.push(name);
    await decodeNow(page, () => radio.check());
    // The second decode of the same citation: warm, as a reader's would be.
    await decodeNow(page, () => page.getByRole("button", { name: "Decode" }).click());
    decodeMs[name] = Number(await page.locator("#decode-ms").getAttribute("data-ms"));
    await expect(page.locator("#error")).toBeHidden();
    await expect(page.locator(".spans").nth(1)).toHaveAttribute("data-row", new RegExp(name));
    const summary = (await page.locator("#summary").textContent()) ?? "";
    const iterations = Number(/(\d+) iterations?/.exec(summary)?.[1]);
    const traced = !summary.includes("no objective per iteration");
    const drawable = (await page.locator("#chart .no-objective").count()) === 0;
    await expect(page.locator("circle.point.dual")).toHaveCount(
      drawable ? (traced ? iterations : 1) : 0,
    );
  }
  expect(enabled).toEqual(expect.arrayContaining(["viterbi", "soft-dd", "hard-dd"]));
  await writeFile(testInfo.outputPath("decoders.json"), JSON.stringify({ enabled }, null, 2));
  await mkdir(dirname(timingsFile), { recursive: true });
  await writeFile(
    join(dirname(timingsFile), "decoder-timings.json"),
    `${JSON.stringify({ citation: "the first example", decodeMs }, null, 2)}\n`,
  );
  await writeFile(
    testInfo.outputPath("last-decoder.png"),
    await page.screenshot({ fullPage: true }),
  );
});

test("the chart has one point per iteration and the heatmap tokens × labels cells", async ({
  page,
}) => {
  await ready(page);
  await page.locator("#decoder-soft-dd").check();
  const summary = (await page.locator("#summary").textContent()) ?? "";
  const iterations = Number(/(\d+) iterations?/.exec(summary)?.[1]);
  const tokens = Number(/(\d+) tokens/.exec(summary)?.[1]);
  await expect(page.locator("circle.point.dual")).toHaveCount(iterations);
  await expect(page.locator("table.objective tbody tr")).toHaveCount(iterations);
  await expect(page.locator("#chart svg[role=img]")).toHaveAttribute("aria-labelledby", /chart/);
  const shown = Number(await page.locator("table.heatmap").getAttribute("data-rows"));
  await expect(page.locator("table.heatmap td.cell")).toHaveCount(shown * tokens);
  await page.getByLabel(/Show every label/).check();
  const all = Number(await page.locator("table.heatmap").getAttribute("data-rows"));
  expect(all).toBeGreaterThanOrEqual(shown);
  await expect(page.locator("table.heatmap td.cell")).toHaveCount(all * tokens);
});

test("uploading model and constraints files, and broken ones showing the package's error", async ({
  page,
}, testInfo) => {
  await ready(page);
  await page.locator("#files summary").click();
  await decodeNow(page, () => page.locator("#model-file").setInputFiles(shippedModel));
  await expect(page.locator("#model-info")).toContainText("citation.model");
  await expect(page.locator("#error")).toBeHidden();

  await page.locator("#model-file").setInputFiles({
    name: "broken.model",
    mimeType: "application/octet-stream",
    buffer: Buffer.from("this is not a model file"),
  });
  await expect(page.locator("#error")).toBeVisible();
  await expect(page.locator("#error")).toContainText("broken.model");
  await writeFile(
    testInfo.outputPath("broken-model.png"),
    await page.screenshot({ fullPage: true }),
  );
  // The page still works: the previous model decodes.
  await decodeNow(page, () => page.getByRole("button", { name: "Decode" }).click());

  const text = await readFile(shippedConstraints, "utf8");
  await decodeNow(page, () =>
    page.locator("#constraints-file").setInputFiles({
      name: "mine.constraints.json",
      mimeType: "application/json",
      buffer: Buffer.from(text),
    }),
  );
  await expect(page.locator("#model-info")).toContainText("mine.constraints.json");

  await page.locator("#constraints-file").setInputFiles({
    name: "bad.constraints.json",
    mimeType: "application/json",
    buffer: Buffer.from('{"format": "lagrange-constraints", "version": 1'),
  });
  await expect(page.locator("#error")).toContainText("bad.constraints.json");
  // A bad file changes nothing: the constraints loaded before stay and still decode.
  await expect(page.locator("#model-info")).toContainText("mine.constraints.json");
  await expect(page.locator("#decoder-soft-dd")).toBeEnabled();
});

test("the dual-decomposition decoders take the AD3 step and show its statistics; uploads keep it", async ({
  page,
}) => {
  await ready(page);
  await page.locator("#citation").fill(CITATION);
  const stats = page.locator("#decode-stats");
  // soft-dd by default, with the subgradient step; a decoder without a master has no step.
  await expect(page.locator("#step-subgradient")).toBeChecked();
  await expect(stats).toHaveAttribute("data-step", "subgradient");
  await decodeNow(page, () => page.locator("#decoder-viterbi").check());
  await expect(page.locator("#step-ad3")).toBeDisabled();
  await expect(stats).toHaveAttribute("data-step", "");
  await expect(page.locator("#step-hint")).toContainText("viterbi does not run");

  await decodeNow(page, () => page.locator("#decoder-soft-dd").check());
  await expect(page.locator("#step-subgradient")).toBeChecked();
  await decodeNow(page, () => page.locator("#step-ad3").check());
  for (const decoder of ["soft-dd", "hard-dd"]) {
    // The step stays when the decoder changes.
    if (decoder !== "soft-dd")
      await decodeNow(page, () => page.locator(`#decoder-${decoder}`).check());
    await expect(page.locator("#step-ad3")).toBeChecked();
    await expect(page.locator(".spans").nth(1)).toHaveAttribute(
      "data-row",
      new RegExp(`${decoder}, AD3 step`),
    );
    await expect(stats).toHaveAttribute("data-step", "ad3");
    await expect(page.locator("#error")).toBeHidden();
    const iterations = Number(await stats.getAttribute("data-iterations"));
    const dual = Number(await stats.getAttribute("data-dual"));
    const primal = Number(await stats.getAttribute("data-primal"));
    const gap = Number(await stats.getAttribute("data-gap"));
    expect(iterations).toBeGreaterThanOrEqual(1);
    if (Number.isFinite(primal) && Number.isFinite(dual)) {
      // A bound: the dual is never below the labelling's score (to the certificate's tolerance).
      expect(dual).toBeGreaterThanOrEqual(primal - 1e-6 * Math.max(1, Math.abs(dual)));
      expect(gap).toBeCloseTo(dual - primal, 4);
    }
    if ((await stats.getAttribute("data-certified")) === "true") {
      expect(gap).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(dual)));
    }
    await expect(stats).toContainText(/Dual -?\d/);
    await expect(page.locator("circle.point.dual")).toHaveCount(iterations);
  }

  // Uploading a model, then constraints, keeps hard-dd and the AD3 step.
  const text = await readFile(shippedConstraints, "utf8");
  await page.locator("#files summary").click();
  await decodeNow(page, () => page.locator("#model-file").setInputFiles(shippedModel));
  await decodeNow(page, () =>
    page.locator("#constraints-file").setInputFiles({
      name: "mine.constraints.json",
      mimeType: "application/json",
      buffer: Buffer.from(text),
    }),
  );
  await expect(page.locator("#decoder-hard-dd")).toBeChecked();
  await expect(page.locator("#step-ad3")).toBeChecked();
  await expect(stats).toHaveAttribute("data-step", "ad3");
  await expect(page.locator(".spans").nth(1)).toHaveAttribute("data-row", /hard-dd, AD3 step/);
});

test("keyboard only: pick an example, a decoder and decode", async ({ page }) => {
  await ready(page);
  await page.locator("body").focus();
  await page.keyboard.press("Tab");
  await expect(page.locator("#example")).toBeFocused();
  const before = await decodedCount(page);
  await page.keyboard.press("ArrowDown");
  await expect.poll(() => decodedCount(page)).toBeGreaterThan(before);
  await page.keyboard.press("Tab");
  await expect(page.locator("#citation")).toBeFocused();
  await page.keyboard.press("Tab");
  const focused = await page.evaluate(() => document.activeElement?.getAttribute("name"));
  expect(focused).toBe("decoder");
  // Arrow keys move within the radio group, skipping disabled decoders, and decode.
  const again = await decodedCount(page);
  await page.keyboard.press("ArrowDown");
  await expect.poll(() => decodedCount(page)).toBeGreaterThan(again);
  // hard-dd runs the dual-decomposition master: its step is the next group.
  await expect(page.locator("#decoder-hard-dd")).toBeChecked();
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("step");
  const stepped = await decodedCount(page);
  await page.keyboard.press("ArrowDown");
  await expect.poll(() => decodedCount(page)).toBeGreaterThan(stepped);
  await expect(page.locator("#step-ad3")).toBeChecked();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Decode" })).toBeFocused();
  const outline = await page.evaluate(
    () => getComputedStyle(document.activeElement as Element).outlineStyle,
  );
  expect(outline).not.toBe("none");
  const last = await decodedCount(page);
  await page.keyboard.press("Enter");
  await expect.poll(() => decodedCount(page)).toBeGreaterThan(last);
});

test("the first example shows a correction, the constraint counts agree, and a model upload keeps the chosen decoder", async ({
  page,
}, testInfo) => {
  await ready(page);
  // The page opens on its first example: Soft-DD splits the two authors Viterbi merged.
  const labelsOf = (row: number) =>
    page.locator(".labelling").nth(row).locator(".token-labels li").allTextContents();
  const persons = (labels: string[]) =>
    labels.filter((l) => l.endsWith("B-person/B-person-first")).length;
  expect(persons(await labelsOf(0))).toBe(2);
  expect(persons(await labelsOf(1))).toBe(3);
  // One count of constraints: the sources line's is the one the decoder was given.
  const fired = page.locator("#fired [data-constraints]");
  const count = await fired.getAttribute("data-constraints");
  await expect(page.locator("#model-info")).toContainText(`${count} constraints from`);
  await expect(fired).toContainText(`of the ${count} constraints fired`);

  // hard-dd with the AD3 step, then a model whose labels the constraints do not name.
  await decodeNow(page, () => page.locator("#decoder-hard-dd").check());
  await decodeNow(page, () => page.locator("#step-ad3").check());
  const data = testInfo.outputPath("tiny.conll");
  const tiny = testInfo.outputPath("tiny.lgm");
  await writeFile(
    data,
    "Smith B-author\n, I-author\nA B-title\ntitle I-title\n2001 B-year\n\nJones B-author\n. I-author\nGood B-title\nwork I-title\n1999 B-year\n\n",
  );
  const cli = join(app, "..", "cli", "bin", "lagrange.mjs");
  const args = ["train", "--data", data, "--preset", "citation", "--max-iterations", "3"];
  execFileSync(process.execPath, [cli, ...args, "--out", tiny], { stdio: "pipe" });
  await page.locator("#files summary").click();
  await decodeNow(page, () => page.locator("#model-file").setInputFiles(tiny));
  // Not silently: the page says which decoder stands in and why.
  await expect(page.locator("#error")).toContainText("constraints dropped");
  await expect(page.locator("#error")).toContainText("hard-dd cannot decode with these files");
  await expect(page.locator("#decoder-viterbi")).toBeChecked();

  // Back to a model and constraints that fit: hard-dd and AD3 return.
  await decodeNow(page, () => page.locator("#model-file").setInputFiles(shippedModel));
  await decodeNow(page, () => page.locator("#constraints-file").setInputFiles(shippedConstraints));
  await expect(page.locator("#decoder-hard-dd")).toBeChecked();
  await expect(page.locator("#step-ad3")).toBeChecked();
  await expect(page.locator(".spans").nth(1)).toHaveAttribute("data-row", /hard-dd, AD3 step/);
  await expect(page.locator("#error")).toBeHidden();
});
