/**
 * CRFsuite model interop on real data: a model CRFsuite trained, imported into Lagrange, tags the
 * test split as CRFsuite's tagger does; a Lagrange-trained model, exported, tags it under
 * CRFsuite's tagger as Lagrange does. The figure is identical tokens (the target: all of them).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AttributeSequence,
  type CrfModel,
  crfsuiteModelFromBytes,
  crfsuiteModelToBytes,
  getPreset,
  loadModel,
  trainCrf,
} from "@lagrange/chain-crf";
import { inputRows } from "@lagrange/datasets";
import { openDataset } from "@lagrange/datasets/node";
import { markdownTable } from "../report.js";
import { type CrfsuiteBinding, loadCrfsuiteBinding } from "../systems/crfsuite-binding.js";
import { attributeNamesPerToken } from "../systems/shared-data.js";

export interface LabelledSplit {
  readonly attributes: readonly AttributeSequence[];
  readonly labels: readonly (readonly string[])[];
}

export interface Agreement {
  readonly tokens: number;
  readonly identicalTokens: number;
  readonly sentences: number;
  readonly identicalSentences: number;
}

function agreement(a: readonly string[][], b: readonly string[][]): Agreement {
  let tokens = 0;
  let identicalTokens = 0;
  let identicalSentences = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    let same = x.length === y.length;
    for (let t = 0; t < x.length; t++) {
      tokens++;
      if (x[t] === y[t]) identicalTokens++;
      else same = false;
    }
    if (same) identicalSentences++;
  }
  return { tokens, identicalTokens, sentences: a.length, identicalSentences };
}

/** CRFsuite trains on `train` (L-BFGS, its own defaults but c2 and the iteration cap); returns the model file's bytes. */
export async function trainWithCrfsuite(
  crfsuite: CrfsuiteBinding,
  train: LabelledSplit,
  params: { readonly c2: number; readonly maxIterations: number },
  workDir: string,
): Promise<Uint8Array> {
  const trainer = new crfsuite.Trainer({ debug: false });
  trainer.set_params({ c2: String(params.c2), max_iterations: String(params.maxIterations) });
  for (let i = 0; i < train.attributes.length; i++) {
    trainer.append(attributeNamesPerToken(train.attributes[i]!), [...train.labels[i]!]);
  }
  const path = join(workDir, "crfsuite-trained.crfsuite");
  trainer.train(path);
  return new Uint8Array(await readFile(path));
}

/** Tags `test` with CRFsuite's tagger on a model file's bytes. */
export async function tagWithCrfsuite(
  crfsuite: CrfsuiteBinding,
  bytes: Uint8Array,
  test: readonly AttributeSequence[],
  workDir: string,
  name: string,
): Promise<string[][]> {
  const path = join(workDir, name);
  await writeFile(path, bytes);
  const tagger = new crfsuite.Tagger();
  if (!tagger.open(path)) throw new Error(`CRFsuite's tagger could not open ${path}`);
  try {
    return test.map((x) => tagger.tag(attributeNamesPerToken(x)));
  } finally {
    tagger.close();
  }
}

export interface InteropCheck {
  /** CRFsuite-trained model: CRFsuite's tags vs the imported model's. */
  readonly imported: Agreement;
  /** Lagrange-trained model: Lagrange's tags vs CRFsuite's on the exported file. */
  readonly exported: Agreement;
  readonly crfsuiteModelBytes: number;
  readonly exportedModelBytes: number;
}

/**
 * Both directions on one split. The Lagrange model's first/last-label weights ride on the
 * `__BOS__` / `__EOS__` attributes, which the attribute input must carry on the first / last token
 * (the chunking preset does).
 */
export async function interopCheck(
  crfsuite: CrfsuiteBinding,
  crfsuiteBytes: Uint8Array,
  lagrangeModel: CrfModel,
  test: readonly AttributeSequence[],
  workDir: string,
): Promise<InteropCheck> {
  const imported = crfsuiteModelFromBytes(crfsuiteBytes, "crfsuite-trained.crfsuite");
  const byCrfsuite = await tagWithCrfsuite(crfsuite, crfsuiteBytes, test, workDir, "a.crfsuite");
  const byImport = test.map((x) => imported.tag(x));
  const exportedBytes = crfsuiteModelToBytes(lagrangeModel, {
    boundaryAttributes: { first: "__BOS__", last: "__EOS__" },
  });
  const byLagrange = test.map((x) => lagrangeModel.tag(x));
  const byExport = await tagWithCrfsuite(crfsuite, exportedBytes, test, workDir, "b.crfsuite");
  return {
    imported: agreement(byCrfsuite, byImport),
    exported: agreement(byLagrange, byExport),
    crfsuiteModelBytes: crfsuiteBytes.length,
    exportedModelBytes: exportedBytes.length,
  };
}

export interface CrfsuiteInteropOptions {
  readonly maxTrainSentences?: number;
  /** L-BFGS iterations for both trainers (default 50: agreement, not accuracy, is measured). */
  readonly maxIterations?: number;
  readonly threads: number;
  /** A Lagrange model of CoNLL-2000 (chunking preset) to export instead of training one. */
  readonly model?: string;
  readonly onStatus?: (message: string) => void;
}

export interface CrfsuiteInteropResult extends InteropCheck {
  readonly suite: "crfsuite-interop";
  readonly setup: Record<string, unknown>;
  readonly seconds: { readonly crfsuiteTrain: number; readonly lagrangeTrain: number | null };
}

async function split(name: string, limit?: number): Promise<LabelledSplit> {
  const opened = await openDataset("conll2000", name);
  if (opened.status !== "available") throw new Error(opened.message);
  const sentences = limit === undefined ? opened.sentences : opened.sentences.slice(0, limit);
  const preset = getPreset("chunking");
  return {
    attributes: sentences.map((s) => preset.extract(inputRows(s))),
    labels: sentences.map((s) => s.labels!),
  };
}

export async function crfsuiteInterop(
  options: CrfsuiteInteropOptions,
): Promise<CrfsuiteInteropResult> {
  const crfsuite = loadCrfsuiteBinding();
  if (crfsuite === null) {
    throw new Error("the crfsuite npm binding is not built (an optional dependency of apps/bench)");
  }
  const maxIterations = options.maxIterations ?? 50;
  const train = await split("train", options.maxTrainSentences);
  const test = await split("test");
  const workDir = await mkdtemp(join(tmpdir(), "lagrange-crfsuite-interop-"));
  try {
    options.onStatus?.(`CRFsuite: training (${maxIterations} iterations)`);
    let started = performance.now();
    const crfsuiteBytes = await trainWithCrfsuite(
      crfsuite,
      train,
      { c2: 1, maxIterations },
      workDir,
    );
    const crfsuiteTrain = (performance.now() - started) / 1000;
    let model: CrfModel;
    let lagrangeTrain: number | null = null;
    if (options.model !== undefined) {
      options.onStatus?.(`Lagrange: loading ${options.model}`);
      model = await loadModel(options.model);
    } else {
      options.onStatus?.(`Lagrange: training (${maxIterations} iterations)`);
      started = performance.now();
      const result = await trainCrf(
        train.attributes.map((attributes, i) => ({ attributes, labels: train.labels[i]! })),
        { algorithm: "lbfgs", c2: 1, maxIterations, threads: options.threads, preset: "chunking" },
      );
      lagrangeTrain = (performance.now() - started) / 1000;
      model = result.model;
    }
    options.onStatus?.("tagging the test split both ways");
    const check = await interopCheck(crfsuite, crfsuiteBytes, model, test.attributes, workDir);
    return {
      suite: "crfsuite-interop",
      setup: {
        dataset: "conll2000",
        preset: "chunking",
        c2: 1,
        maxIterations,
        trainSentences: train.attributes.length,
        testSentences: test.attributes.length,
        lagrangeModel: options.model ?? "trained in this run",
        node: process.version,
      },
      seconds: { crfsuiteTrain, lagrangeTrain },
      ...check,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export function crfsuiteInteropMarkdown(result: CrfsuiteInteropResult): string {
  const row = (what: string, a: Agreement) => [
    what,
    a.identicalTokens,
    a.tokens,
    (100 * a.identicalTokens) / a.tokens,
    `${a.identicalSentences} / ${a.sentences}`,
  ];
  return [
    `### crfsuite-interop (CoNLL-2000 test, chunking attributes, ${String(result.setup.maxIterations)} L-BFGS iterations, c2 = 1)`,
    "",
    markdownTable(
      ["direction", "identical tokens", "tokens", "identical %", "identical sentences"],
      [
        row("CRFsuite-trained → imported: Lagrange vs CRFsuite tagger", result.imported),
        row("Lagrange-trained → exported: CRFsuite tagger vs Lagrange", result.exported),
      ],
      3,
    ),
    `Model files: CRFsuite-trained ${result.crfsuiteModelBytes} bytes, exported ${result.exportedModelBytes} bytes.`,
    "",
  ].join("\n");
}
