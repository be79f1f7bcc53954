import { type CitationDemo, citationDemo, prepareCitationExperiment } from "@lagrange/recipes";
import { interruptible } from "../interruption.js";
import { threadCount } from "../options.js";
import { note, progressBar } from "../progress.js";
import { learnedConstraintsReport } from "../render.js";

export interface DemoOptions {
  readonly crfIterations: number;
  readonly threads: number;
  readonly epochs: number;
  readonly seed: number;
}

const pct = (x: number) => x.toFixed(2);

/**
 * The main job: anzaroot2014's experiment in one screen (the citation recipe of
 * @lagrange/recipes; this command only renders it).
 */
export async function demoCommand(options: DemoOptions, signal?: AbortSignal): Promise<string> {
  const bar = progressBar("train", options.crfIterations);
  const experiment = await prepareCitationExperiment({
    crfIterations: options.crfIterations,
    threads: threadCount(options.threads),
    seed: options.seed,
    onStatus: note,
    onTrainingProgress: (p) =>
      bar.update(Math.min(p.iteration, options.crfIterations), `loss ${p.loss.toFixed(1)}`),
    ...(signal === undefined ? {} : { signal }),
  }).finally(() => bar.stop());
  note(`learning constraint penalties on ${experiment.learn.length} dev citations…`);
  const demo = await citationDemo(experiment, {
    epochs: options.epochs,
    onEpoch: (e) =>
      note(
        `  epoch ${e.epoch}: ${e.mistakes} mistakes, ${e.nonZero} penalties > 0, ${e.meanIterations.toFixed(2)} mean Soft-DD iterations`,
      ),
    ...(signal === undefined ? {} : { signal }),
  });
  const { base } = experiment;
  const [viterbiTime, softTime] = demo.timing;
  const row = (name: string, d: CitationDemo["viterbi"], time = viterbiTime!) =>
    `| ${name} | ${pct(d.scores.precision)} | ${pct(d.scores.recall)} | ${pct(d.scores.f1)} | ${pct(d.scores.tokenAccuracy)} | ${(100 * d.summary.certifiedRate).toFixed(1)} | ${d.summary.meanIterations.toFixed(2)} | ${time.taggingRatio.toFixed(2)}× (${time.taggingMs.toFixed(0)} ms; decoding alone ${time.decodingRatio.toFixed(2)}×) |`;
  return [
    `data:     ${experiment.source}`,
    `model:    linear-chain CRF, ${base.features} features, ${base.model.numLabels} labels, ${base.iterations ?? "cached"} L-BFGS iterations (${base.seconds.toFixed(1)} s), trained on ${experiment.trainCitations} citations`,
    `split:    dev shuffled (seed ${experiment.seed}): penalties learned on ${experiment.learn.length} citations, evaluated on the other ${experiment.test.length}`,
    `learned:  ${demo.learnSeconds.toFixed(1)} s`,
    "",
    learnedConstraintsReport(demo.learned),
    "| decoder | field P | field R | field F1 | token acc | % certified | mean iterations | tagging time vs Viterbi |",
    "|---|---|---|---|---|---|---|---|",
    row("Viterbi (scheme-valid)", demo.viterbi),
    row("Soft-DD (learned penalties)", demo.softDD, softTime),
    "",
    `Field F1 (all hierarchy levels) ${pct(demo.viterbi.scores.f1)} → ${pct(demo.softDD.scores.f1)}: ${demo.errorReduction.toFixed(1)} % relative error reduction. ${(100 * demo.softDD.summary.changedRate).toFixed(1)} % of citations changed by the constraints. Times: the same Tagger path as \`lagrange tag\` (token rows → features → scores → decoder), warm medians of alternating runs.`,
    "",
    exampleText(demo),
  ].join("\n");
}

function exampleText(demo: CitationDemo): string {
  const e = demo.example;
  if (e === undefined) return "No citation was changed by the constraints.\n";
  const width = Math.max(5, ...e.tokens.map((t) => t.length));
  const vWidth = Math.max(7, ...e.viterbi.map((t) => t.length));
  const lines = [
    `Example: test citation ${e.index + 1}, where the constraints changed the labels (* = labels differ; ✓ = equals gold):`,
    "",
    `  ${"token".padEnd(width)}    ${"Viterbi".padEnd(vWidth)}    Soft-DD`,
  ];
  e.tokens.forEach((token, t) => {
    const v = e.viterbi[t]!;
    const c = e.constrained[t]!;
    const ok = (label: string) => (label === e.gold[t] ? "✓" : " ");
    lines.push(
      `${v === c ? " " : "*"} ${token.padEnd(width)}  ${ok(v)} ${v.padEnd(vWidth)}  ${ok(c)} ${c}`,
    );
  });
  lines.push(
    "",
    e.because.length === 0
      ? "No single constraint is responsible (the multipliers balanced several)."
      : `Changed because of: ${e.because.map((n) => `"${n}"`).join("; ")}.`,
  );
  return `${lines.join("\n")}\n`;
}

/** What `lagrange demo` does (its options are declared in ../define/demo.ts). */
export async function demoAction(opts: DemoOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => demoCommand(opts, signal)));
}
