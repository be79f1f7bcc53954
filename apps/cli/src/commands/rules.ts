import { RULE_FAMILIES, serializeConstraintsFile } from "@lagrange/constraint-templates";
import { parseLabelScheme } from "@lagrange/datasets";
import { corpusLocator } from "@lagrange/datasets/node";
import {
  RULE_COST_POLICIES,
  RULE_MINING_DEFAULTS,
  type RuleCostPolicy,
  type RuleFamily,
  type RuleMining,
} from "@lagrange/ilp";
import { type MinedOnCorpus, mineRulesOnCorpus } from "@lagrange/recipes";
import { type Command, InvalidArgumentError, Option } from "commander";
import { usageError } from "../exit-codes.js";
import { openData, readModel } from "../inputs.js";
import { interruptible } from "../interruption.js";
import {
  malformedOption,
  parseInteger,
  parseNonNegative,
  parseNumber,
  parsePositive,
} from "../options.js";
import { type Output, writeOutput } from "../output.js";
import { note, progressBar } from "../progress.js";

/**
 * No candidate rule passed the thresholds: nothing worth writing (exit 1, like training that made
 * no progress; `--allow-empty` writes the empty file).
 */
export class NoRulesMinedError extends Error {
  override readonly name = "NoRulesMinedError";
}

export interface RulesMineOptions {
  readonly data: string;
  readonly format?: string;
  readonly scheme?: string;
  /** Write the rules for this model's label set (default: the data's gold labels). */
  readonly model?: string;
  readonly families: string;
  readonly minSupport: number;
  readonly minConfidence: number;
  readonly minLift: number;
  readonly cost: RuleCostPolicy;
  readonly smoothing: number;
  /** `--delimiters`, parsed by {@link parseDelimiters}. */
  readonly delimiters?: readonly string[] | "auto";
  /** `--no-outside` sets this false: rules never name O. */
  readonly outside: boolean;
  readonly malformed?: "error" | "repair" | "skip";
  readonly allowEmpty?: boolean;
  readonly out: string;
}

/** `rules` or a comma-separated list of rule families. */
export function parseRuleFamilies(spec: string): RuleFamily[] {
  const families = new Set<RuleFamily>();
  for (const raw of spec.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    if (name === "rules" || name === "all") {
      for (const f of RULE_FAMILIES) families.add(f as RuleFamily);
    } else if ((RULE_FAMILIES as readonly string[]).includes(name)) {
      families.add(name as RuleFamily);
    } else {
      throw usageError(
        `--families: unknown rule family "${name}"; expected "rules" or a comma-separated list of ${RULE_FAMILIES.join(", ")}`,
      );
    }
  }
  if (families.size === 0) throw usageError("--families: name at least one rule family");
  return RULE_FAMILIES.filter((f) => families.has(f as RuleFamily)) as RuleFamily[];
}

/**
 * `--delimiters`: `auto`; tokens separated by spaces (`"( ) -- ..."`); or, without a space, one
 * delimiter per character (`",;:()"`).
 */
export function parseDelimiters(spec: string): readonly string[] | "auto" {
  const text = spec.trim();
  if (text === "auto") return "auto";
  const tokens = /\s/.test(text) ? text.split(/\s+/) : Array.from(text);
  const unique = [...new Set(tokens.filter((t) => t !== ""))];
  if (unique.length === 0) {
    throw new InvalidArgumentError(`expected delimiter tokens or "auto", got "${spec}"`);
  }
  return unique;
}

function parseFraction(value: string): number {
  const x = parseNumber(value);
  if (x < 0 || x > 1) throw new InvalidArgumentError(`expected a number in 0…1, got "${value}"`);
  return x;
}

/** `lagrange rules mine`: returns the report (stdout); the file is written atomically. */
export async function rulesMineCommand(
  options: RulesMineOptions,
  signal?: AbortSignal,
): Promise<string> {
  const families = parseRuleFamilies(options.families);
  const delimiters = options.delimiters ?? "auto";
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  return writeOutput(
    options.out,
    { option: "--out", inputs: [options.data, options.model] },
    (output) => mineInto(output, options, families, delimiters, signal),
  );
}

async function mineInto(
  output: Output,
  options: RulesMineOptions,
  families: RuleFamily[],
  delimiters: readonly string[] | "auto",
  signal: AbortSignal | undefined,
): Promise<string> {
  const model = options.model === undefined ? undefined : await readModel(options.model);
  const data = await openData("--data", options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    ...(signal === undefined ? {} : { signal }),
  });
  if (data.report !== undefined && (data.report.skipped > 0 || data.report.repaired > 0)) {
    note(
      `${data.label}: ${data.report.skipped} malformed lines skipped, ${data.report.repaired} repaired (--malformed error to stop on them)`,
    );
  }
  const scheme =
    options.scheme === undefined ? data.scheme : parseLabelScheme(options.scheme, "--scheme");
  note(
    `mining ${families.join(", ")} rules on ${data.sentences.length} sequences (${data.label}), scheme ${scheme}${options.scheme === undefined ? " (from the data)" : ""}`,
  );
  const bar = progressBar("mine", data.sentences.length);
  let mined: MinedOnCorpus;
  try {
    mined = await mineRulesOnCorpus(data, {
      scheme,
      ...(model === undefined
        ? {}
        : { labels: model.labels.names(), labelsFrom: `the model ${options.model}` }),
      families,
      delimiters,
      minSupport: options.minSupport,
      minConfidence: options.minConfidence,
      minLift: options.minLift,
      cost: options.cost,
      smoothing: options.smoothing,
      includeOutside: options.outside,
      onProgress: (p) => bar.update(p.sentences),
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    bar.stop();
  }
  const { mining, schemeCheck } = mined;
  const first = schemeCheck.first;
  if (first !== undefined) {
    note(
      `${data.label}: ${schemeCheck.invalid} gold sequences are invalid under ${scheme} (counted as they are; the first, at ${corpusLocator(data)(first.index, first.position)}: ${first.message})`,
    );
  }
  if (mining.rules.length === 0 && options.allowEmpty !== true) {
    throw new NoRulesMinedError(
      `no rule passed the thresholds on ${data.label}: ${droppedText(mining)}; lower --min-support, --min-confidence or --min-lift, or write the empty file with --allow-empty`,
    );
  }
  await output.write(serializeConstraintsFile(mined.file));
  return `${rulesReport(mining, data.label, options.cost)}wrote ${options.out}\n`;
}

function droppedText(mining: RuleMining): string {
  const { settings: s, dropped: d } = mining;
  return `of ${mining.candidates} candidates, ${d.neverFired} never fired, ${d.belowSupport} had support < ${s.minSupport}, ${d.belowConfidence} confidence < ${s.minConfidence}, ${d.belowLift} lift < ${s.minLift}`;
}

/** The mining report in words: counts, rules per family, and the most important rules. */
export function rulesReport(mining: RuleMining, data: string, cost: RuleCostPolicy, top = 10) {
  const perFamily = new Map<string, number>();
  for (const r of mining.rules) {
    perFamily.set(r.template.family, (perFamily.get(r.template.family) ?? 0) + 1);
  }
  const families = [...perFamily].map(([f, k]) => `${f} ${k}`).join(", ");
  const { settings } = mining;
  const lines = [
    `mined ${mining.rules.length} rules on ${data} (${mining.sentences} sentences, ${mining.tokens} tokens): ${droppedText(mining)}.`,
    ...(families === "" ? [] : [`Per family: ${families}.`]),
    ...(settings.families.includes("state-change")
      ? [
          `Delimiters (${settings.delimiterSource === "auto" ? "the defaults and frequent punctuation of the data" : "given"}): ${settings.delimiters.join(" ")}`,
        ]
      : []),
  ];
  if (mining.rules.length > 0) {
    lines.push(
      `The ${Math.min(top, mining.rules.length)} most important (cost ${cost}; support, violations, confidence):`,
    );
    for (const r of mining.rules.slice(0, top)) {
      lines.push(
        `  ${r.cost.toFixed(4).padStart(8)}  ${r.template.describe()}  (${r.support}, ${r.violations}, ${(100 * r.confidence).toFixed(1)}%)`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

export function registerRules(program: Command): void {
  const rules = program
    .command("rules")
    .description(
      "fersini2014's rule templates (adjacency, precedence, state change, begin-end, presence and precedence): mine them from labelled data",
    );
  rules
    .command("mine")
    .description(
      "Count every candidate rule template over the gold labels of the training data (support: instances whose premise fires; confidence: the share the gold labels satisfy), keep those above the thresholds and write them as a versioned constraints file whose penalties are the rule costs, for `lagrange tag --constraints`. A counting substitute for the paper's MINSAT/Lsquare learner",
    )
    .requiredOption(
      "--data <spec>",
      "labelled training data: a registry name[:split] (default split train) or a file path",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline (default from the extension)",
    )
    .option(
      "--scheme <name>",
      "label scheme the gold labels are checked against: IOB1, IOB2, hierarchical-BIO (rule templates read B-/I-/O labels only; default: the data's)",
    )
    .option(
      "--model <file>",
      "write the rules for this model's label set, in its order (default: the data's gold labels in order of first appearance, which is what `lagrange train` on the same data gives)",
    )
    .option(
      "--families <list>",
      `"rules" (all five) or a comma-separated list of ${RULE_FAMILIES.join(", ")}`,
      "rules",
    )
    .option(
      "--min-support <n>",
      "keep rules whose premise fires at least n times",
      parseInteger,
      RULE_MINING_DEFAULTS.minSupport,
    )
    .option(
      "--min-confidence <x>",
      "keep rules the gold labels satisfy in at least this share of their instances (0…1)",
      parseFraction,
      RULE_MINING_DEFAULTS.minConfidence,
    )
    .option(
      "--min-lift <x>",
      "keep rules whose confidence is at least x times the consequent's rate without the premise",
      parseNonNegative,
      RULE_MINING_DEFAULTS.minLift,
    )
    .addOption(
      new Option(
        "--cost <policy>",
        "rule cost (the penalty): paper (fersini2014 Eq. 30 made ≥ 0; small, for the two-phase ILP), violation-rate (−log of the smoothed violation rate), log-odds (on the scale of CRF scores, for soft-dd)",
      )
        .choices([...RULE_COST_POLICIES])
        .default(RULE_MINING_DEFAULTS.cost),
    )
    .option(
      "--smoothing <alpha>",
      "Laplace smoothing α of the costs (> 0)",
      parsePositive,
      RULE_MINING_DEFAULTS.smoothing,
    )
    .option(
      "--delimiters <tokens>",
      'state-change delimiters: characters (",;:()"), tokens separated by spaces ("( ) -- ..."), or auto (default: , . ; : ( ) and every punctuation token seen min-support times)',
      parseDelimiters,
    )
    .option("--no-outside", "rules never name O (tokens outside every segment)")
    .addOption(malformedOption())
    .option(
      "--allow-empty",
      "write the file even when no rule passes the thresholds (by default that is an error, exit 1)",
    )
    .requiredOption(
      "--out <file>",
      "constraints file to write (JSON, atomically; checked before mining; never an input)",
    )
    .addHelpText(
      "after",
      "\nWhen no candidate rule passes the thresholds nothing is written and the command exits 1 (unless --allow-empty).\nData whose labels are not O/B-/I- (BIOES, plain tags) is a usage error (exit 2); malformed data exits 3 at its file:line.",
    )
    .action(async (opts: RulesMineOptions) => {
      process.stdout.write(await interruptible((signal) => rulesMineCommand(opts, signal)));
    });
}
