import { existsSync } from "node:fs";
import type { CrfModel } from "@lagrange/chain-crf";
import {
  COUNT_FAMILIES,
  type ConstraintFamily,
  RULE_FAMILIES,
  serializeConstraintsFile,
} from "@lagrange/constraint-templates";
import type { Sentence } from "@lagrange/datasets";
import {
  attributesOf,
  checkCut,
  DOCUMENT_JACKKNIFE_FOLDS,
  documentConstraintsFile,
  documentConstraintsLine,
  inputForModel,
  learnAndSelectConstraints,
  openTrainer,
  recordedTraining,
  scoreSentences,
} from "@lagrange/recipes";
import type { PenaltyAlgorithm } from "@lagrange/soft-dd";
import { badInputError, usageError } from "../exit-codes.js";
import { openData, readModel } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { type Output, writeOutput } from "../output.js";
import { note, warn } from "../progress.js";
import { constraintSelectionReport, learnedConstraintsReport } from "../render.js";

/**
 * Names accepted by `--templates`: the count families of anzaroot2014 §5, `bio` (local BIO
 * validity, which is the model's transition mask rather than a learned constraint), `rules` (the
 * five fersini2014 rule templates) or any single rule family.
 */
export const TEMPLATE_NAMES = [
  "bio",
  "rules",
  ...COUNT_FAMILIES,
  ...RULE_FAMILIES,
  "document",
] as const;

/** Parses `singleton,pairwise,hierarchical,bio,rules` into template families. */
export function parseTemplateFamilies(spec: string): {
  families: ConstraintFamily[];
  bio: boolean;
} {
  const families = new Set<ConstraintFamily>();
  let bio = false;
  for (const raw of spec.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    if (name === "bio") bio = true;
    else if (name === "rules") for (const f of RULE_FAMILIES) families.add(f);
    else if (name === "document") families.add("document");
    else if (([...COUNT_FAMILIES, ...RULE_FAMILIES] as readonly string[]).includes(name)) {
      families.add(name as ConstraintFamily);
    } else {
      throw usageError(
        `--templates: unknown family "${name}"; expected a comma-separated list of ${TEMPLATE_NAMES.join(", ")}`,
      );
    }
  }
  if (families.size === 0 && !bio) throw usageError("--templates: name at least one family");
  return { families: [...families], bio };
}

export interface ConstraintsLearnOptions {
  readonly model: string;
  readonly data: string;
  readonly format?: string;
  readonly templates: string;
  readonly threshold: number;
  readonly algorithm: PenaltyAlgorithm;
  readonly epochs: number;
  readonly learningRate?: number;
  readonly countUnit: "label" | "segment";
  readonly checkFolds: number;
  readonly malformed?: "error" | "repair" | "skip";
  readonly out: string;
}

/** `lagrange constraints learn`: returns the report (stdout); the file is written atomically. */
export async function constraintsLearnCommand(
  options: ConstraintsLearnOptions,
  signal?: AbortSignal,
): Promise<string> {
  const { families, bio } = parseTemplateFamilies(options.templates);
  if (families.includes("document") && (families.length > 1 || bio)) {
    throw usageError(
      "--templates document: document constraints learn on jackknifed folds of the model's training data, the other families on held-out data: learn them in runs of their own",
    );
  }
  return writeOutput(options.out, { option: "--out", signal }, (output) =>
    families.includes("document")
      ? learnDocumentInto(output, options, signal)
      : learnInto(output, options, families, bio, signal),
  );
}

async function learnInto(
  output: Output,
  options: ConstraintsLearnOptions,
  families: ConstraintFamily[],
  bio: boolean,
  signal: AbortSignal | undefined,
): Promise<string> {
  const model = await readModel(options.model, "--model", signal);
  const read = await openData("--data", options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
    ...(signal === undefined ? {} : { signal }),
  });
  const data = inputForModel(read, model, "required");
  const scored = scoreSentences(model, data.sentences, attributesOf(model, data.sentences));
  if (!scored.some((s) => s.gold !== undefined)) {
    const unknown = unknownLabels(model, data.sentences);
    throw badInputError(
      `${data.label}: no sentence has gold labels the model knows, so there is nothing to learn penalties from${unknown.length === 0 ? "" : ` (labels the model lacks: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""}; the model's: ${model.labels.names().slice(0, 8).join(", ")}${model.numLabels > 8 ? ", …" : ""})`}`,
    );
  }
  const cut = checkCut(data.sentences, options.checkFolds, data.label);
  note(
    `learning penalties (${options.algorithm}, ${options.epochs} epochs) for ${families.join(", ") || "no"} templates on ${cut.learn.length} sentences of ${data.label}; checking on the other ${cut.check.length}`,
  );
  const selected = await learnAndSelectConstraints(
    model,
    cut.learn.map((i) => scored[i]!),
    cut.check.map((i) => scored[i]!),
    {
      families,
      threshold: options.threshold,
      algorithm: options.algorithm,
      epochs: options.epochs,
      countUnit: options.countUnit,
      ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
      onEpoch: (e) =>
        note(
          `  epoch ${e.epoch}: ${e.mistakes} mistakes, ${e.nonZero} penalties > 0, ${e.meanIterations.toFixed(2)} mean iterations, ${(100 * e.certifiedRate).toFixed(1)}% certified`,
        ),
      ...(signal === undefined ? {} : { signal }),
    },
  );
  if (selected.learned.kept.length === 0 && families.length > 0) {
    warn(
      `no candidate constraint reached importance ${options.threshold} on ${data.label}; the file holds none (a lower --threshold keeps more)`,
    );
  }
  const { model: _, out: __, ...settings } = options;
  await output.write(
    serializeConstraintsFile({
      index: selected.learned.index,
      entries: selected.entries,
      metadata: {
        ...settings,
        model: options.model,
        data: data.label,
        candidates: selected.learned.candidates,
        examples: selected.learned.examples,
        checkSentences: selected.checkSentences,
        checkF1Before: round(selected.checkF1.before),
        checkF1After: round(selected.checkF1.after),
      },
    }),
  );
  const bioLine = bio
    ? "Local BIO validity: enforced as the model's transition mask (hard), not learned.\n"
    : "";
  return `${learnedConstraintsReport(selected.learned)}${constraintSelectionReport(selected)}${bioLine}wrote ${options.out}\n`;
}

/**
 * `--templates document`: --data is the model's TRAINING data; chain CRFs of its jackknife folds
 * are trained as the model file records, the penalties learned on all folds but one and kept only
 * where that fold gains. No dev or test split is read.
 */
async function learnDocumentInto(
  output: Output,
  options: ConstraintsLearnOptions,
  signal: AbortSignal | undefined,
): Promise<string> {
  // A registry split other than train is refused before anything of it is read.
  const split = /^[^/\\:]+:([^/\\:]+)$/.exec(options.data)?.[1];
  if (split !== undefined && split !== "train" && !existsSync(options.data)) {
    throw usageError(
      `--data ${options.data}: --templates document learns on the model's training data (its train split), never on a dev or test split, which stay for measuring`,
    );
  }
  const model = await readModel(options.model, "--model", signal);
  const recorded = recordedTraining(model, `--model ${options.model}`);
  const read = await openData("--data", options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "train",
    ...(signal === undefined ? {} : { signal }),
  });
  if (read.dataset !== undefined && !read.label.endsWith(":train")) {
    throw usageError(
      `--data ${read.label}: --templates document learns on the model's training data (${read.dataset}:train), never on a dev or test split, which stay for measuring`,
    );
  }
  const data = inputForModel(read, model, "required");
  const trainedOn = model.settings.data;
  if (typeof trainedOn === "string" && trainedOn !== data.label) {
    warn(
      `--data ${data.label}: ${options.model} records training data ${trainedOn}; the jackknife should fold the model's own training data`,
    );
  }
  const folds = DOCUMENT_JACKKNIFE_FOLDS;
  note(
    `document constraints: training ${folds} jackknife folds of ${data.label} as ${options.model} was (${recorded.spec.algorithm}${recorded.spec.maxIterations === undefined ? "" : `, ${recorded.spec.maxIterations} iterations`}), learning penalties (${options.algorithm}, ${options.epochs} epochs) on ${folds - 1} folds, checking on the last`,
  );
  const trainer = openTrainer(recorded.spec, {
    features: recorded.featuresOf(data),
    ...(signal === undefined ? {} : { signal }),
  });
  const selected = await trainer.learnDocumentConstraints(data, model, {
    folds,
    featuresOf: (corpus) => Promise.resolve(recorded.featuresOf(corpus)),
    algorithm: options.algorithm,
    epochs: options.epochs,
    ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
    onProgress: (p) => {
      if (p.stage === "crf") note(`  fold ${p.fold} of ${p.folds}: chain CRF trained and scored`);
      else if (p.stage === "penalties") {
        note(
          `  epoch ${p.epoch.epoch}: ${p.epoch.mistakes} documents wrong, ${p.epoch.nonZero} penalties > 0, ${p.epoch.meanIterations.toFixed(2)} mean iterations, ${(100 * p.epoch.certifiedRate).toFixed(1)}% certified`,
        );
      }
    },
    ...(signal === undefined ? {} : { signal }),
  });
  const { model: _, out: __, ...settings } = options;
  await output.write(
    documentConstraintsFile(selected, {
      ...settings,
      model: options.model,
      data: data.label,
      folds,
    }),
  );
  const lines = selected.types.map((t) =>
    t.gain === undefined
      ? `  ${t.type}: dropped (${t.reason ?? "no gain"})`
      : `  ${t.type}: kept ${t.kept} (check gain ${t.gain.gain >= 0 ? "+" : ""}${t.gain.gain.toFixed(2)} [${t.gain.interval[0].toFixed(2)}, ${t.gain.interval[1].toFixed(2)}])`,
  );
  return `${documentConstraintsLine(selected)}\n${lines.join("\n")}\nwrote ${options.out}\n`;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Gold labels of the data that the model has no id for. */
function unknownLabels(model: CrfModel, sentences: readonly Sentence[]): string[] {
  const known = new Set(model.labels.names());
  const unknown = new Set<string>();
  for (const s of sentences)
    for (const label of s.labels ?? []) if (!known.has(label)) unknown.add(label);
  return [...unknown];
}

/** What `lagrange constraints` does (its options are declared in ../define/constraints.ts). */
export async function constraintsAction(opts: ConstraintsLearnOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => constraintsLearnCommand(opts, signal)));
}
