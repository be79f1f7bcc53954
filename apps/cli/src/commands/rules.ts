import { RULE_FAMILIES, serializeConstraintsFile } from "@lagrange/constraint-templates";
import { corpusLocator, parseLabelScheme } from "@lagrange/datasets";
import type { RuleCostPolicy, RuleFamily, RuleMining } from "@lagrange/ilp";
import { type MinedOnCorpus, mineRulesOnCorpus } from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { openData, readModel } from "../inputs.js";
import { interruptible } from "../interruption.js";
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
  /** `--delimiters` once parsed: the delimiters given, or `auto`. */
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

/** `lagrange rules mine`: returns the report (stdout); the file is written atomically. */
export async function rulesMineCommand(
  options: RulesMineOptions,
  signal?: AbortSignal,
): Promise<string> {
  const families = parseRuleFamilies(options.families);
  const delimiters = options.delimiters ?? "auto";
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  return writeOutput(options.out, { option: "--out", signal }, (output) =>
    mineInto(output, options, families, delimiters, signal),
  );
}

async function mineInto(
  output: Output,
  options: RulesMineOptions,
  families: RuleFamily[],
  delimiters: readonly string[] | "auto",
  signal: AbortSignal | undefined,
): Promise<string> {
  const model =
    options.model === undefined ? undefined : await readModel(options.model, "--model", signal);
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

/** What `lagrange rules` does (its options are declared in ../define/rules.ts). */
export async function rulesAction(opts: RulesMineOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => rulesMineCommand(opts, signal)));
}
