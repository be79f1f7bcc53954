import { loadModel } from "@lagrange/chain-crf";
import {
  COUNT_FAMILIES,
  type ConstraintFamily,
  RULE_FAMILIES,
  serializeConstraintsFile,
} from "@lagrange/constraint-templates";
import { writeFileAtomic } from "@lagrange/core/node";
import { openCorpus } from "@lagrange/datasets";
import { attributesOf, learnConstraints, scoreSentences } from "@lagrange/recipes";
import { PENALTY_ALGORITHMS, type PenaltyAlgorithm } from "@lagrange/soft-dd";
import { type Command, Option } from "commander";
import { badInputError, usageError } from "../exit-codes.ts";
import { malformedOption, parseInteger, parseNumber, withCtrlC } from "../options.ts";
import { note } from "../progress.ts";
import { learnedConstraintsReport } from "../render.ts";

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
  const model = await loadModel(options.model);
  const data = await openCorpus(options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
  });
  if (!data.sentences.some((s) => s.labels !== undefined)) {
    throw badInputError(`${data.label}: no gold labels to learn penalties from`);
  }
  const scored = scoreSentences(model, data.sentences, attributesOf(model, data.sentences));
  note(
    `learning penalties (${options.algorithm}, ${options.epochs} epochs) for ${families.join(", ") || "no"} templates on ${data.label}`,
  );
  const learned = learnConstraints(model, scored, {
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
  const { model: _, out: __, ...settings } = options;
  const text = serializeConstraintsFile({
    index: learned.index,
    entries: learned.entries,
    metadata: {
      ...settings,
      model: options.model,
      data: data.label,
      candidates: learned.candidates,
      examples: learned.examples,
    },
  });
  await writeFileAtomic(options.out, text);
  const bioLine = bio
    ? "Local BIO validity: enforced as the model's transition mask (hard), not learned.\n"
    : "";
  return `${learnedConstraintsReport(learned)}${bioLine}wrote ${options.out}\n`;
}

export function registerConstraints(program: Command): void {
  const constraints = program
    .command("constraints")
    .description("Global constraints over a model's labels (anzaroot2014): learn penalties");
  constraints
    .command("learn")
    .description(
      "Generate candidate constraints from templates, prune them by importance (imp(c) ≥ threshold) and learn their penalties on held-out data; writes a versioned constraints file and prints which constraints were kept and dropped",
    )
    .requiredOption("--model <file>", "model file (the base CRF)")
    .requiredOption(
      "--data <spec>",
      "held-out labelled data: a registry name[:split] (default split dev) or a file path",
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .option(
      "--templates <list>",
      "comma-separated families: singleton, pairwise, hierarchical, bio (the BIO mask, always on), rules (adjacency, precedence, state-change, begin-end, presence-precedence) or single rule families",
      "singleton,pairwise,hierarchical",
    )
    .option("--threshold <x>", "keep candidates with importance imp(c) ≥ x", parseNumber, 2.75)
    .addOption(
      new Option("--algorithm <name>", "penalty learner")
        .choices([...PENALTY_ALGORITHMS])
        .default("averaged-perceptron"),
    )
    .option("--epochs <n>", "passes over the held-out data", parseInteger, 5)
    .option("--learning-rate <x>", "perceptron step / SSVM η₀ (default 0.1)", parseNumber)
    .addOption(
      new Option(
        "--count-unit <unit>",
        "what singleton and pairwise constraints count: segments, or full labels (the paper's literal reading)",
      )
        .choices(["label", "segment"])
        .default("segment"),
    )
    .addOption(malformedOption())
    .requiredOption("--out <file>", "constraints file to write (JSON, atomically)")
    .action(async (opts: ConstraintsLearnOptions) => {
      process.stdout.write(await withCtrlC((signal) => constraintsLearnCommand(opts, signal)));
    });
}
