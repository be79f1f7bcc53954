import type { CrfModel } from "@lagrange/chain-crf";
import {
  COUNT_FAMILIES,
  type ConstraintFamily,
  RULE_FAMILIES,
  serializeConstraintsFile,
} from "@lagrange/constraint-templates";
import type { Sentence } from "@lagrange/datasets";
import { attributesOf, inputForModel, learnConstraints, scoreSentences } from "@lagrange/recipes";
import type { PenaltyAlgorithm } from "@lagrange/soft-dd";
import { badInputError, usageError } from "../exit-codes.js";
import { openData, readModel } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { type Output, writeOutput } from "../output.js";
import { note, warn } from "../progress.js";
import { learnedConstraintsReport } from "../render.js";

/**
 * Names accepted by `--templates`: the count families of anzaroot2014 §5, `bio` (local BIO
 * validity, which is the model's transition mask rather than a learned constraint), `rules` (the
 * five fersini2014 rule templates) or any single rule family.
 */
export const TEMPLATE_NAMES = ["bio", "rules", ...COUNT_FAMILIES, ...RULE_FAMILIES] as const;

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
  readonly malformed?: "error" | "repair" | "skip";
  readonly out: string;
}

/** `lagrange constraints learn`: returns the report (stdout); the file is written atomically. */
export async function constraintsLearnCommand(
  options: ConstraintsLearnOptions,
  signal?: AbortSignal,
): Promise<string> {
  const { families, bio } = parseTemplateFamilies(options.templates);
  return writeOutput(options.out, { option: "--out", signal }, (output) =>
    learnInto(output, options, families, bio, signal),
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
  note(
    `learning penalties (${options.algorithm}, ${options.epochs} epochs) for ${families.join(", ") || "no"} templates on ${data.label}`,
  );
  const learned = await learnConstraints(model, scored, {
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
  });
  if (learned.kept.length === 0 && families.length > 0) {
    warn(
      `no candidate constraint reached importance ${options.threshold} on ${data.label}; the file holds none (a lower --threshold keeps more)`,
    );
  }
  const { model: _, out: __, ...settings } = options;
  await output.write(
    serializeConstraintsFile({
      index: learned.index,
      entries: learned.entries,
      metadata: {
        ...settings,
        model: options.model,
        data: data.label,
        candidates: learned.candidates,
        examples: learned.examples,
      },
    }),
  );
  const bioLine = bio
    ? "Local BIO validity: enforced as the model's transition mask (hard), not learned.\n"
    : "";
  return `${learnedConstraintsReport(learned)}${bioLine}wrote ${options.out}\n`;
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
