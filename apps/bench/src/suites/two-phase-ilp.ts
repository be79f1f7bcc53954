import {
  type Prf,
  type Significance,
  type SystemResult,
  type TimeDistribution,
  type TwoPhaseBenchmark,
  type TwoPhaseBenchmarkOptions,
  type TwoPhaseDatasetResult,
  twoPhaseBenchmark,
} from "@lagrange/experiments";
import {
  markdownTable,
  runCachedSuite,
  type SuiteResult,
  skippedLines,
  targetsTable,
  timingTable,
} from "../report.js";

export interface TwoPhaseIlpOptions extends TwoPhaseBenchmarkOptions {
  /** Where trained models are cached (default `<repo>/.lagrange-cache/bench`). */
  readonly cacheDir?: string;
}

export type TwoPhaseIlpResult = SuiteResult<"two-phase-ilp", TwoPhaseBenchmark>;

/**
 * fersini2014's two-phase soft-constrained ILP against CRF-Viterbi and Soft-DD on Cora, CoNLL-2003
 * and UMass citations (the two-phase recipe of @lagrange/experiments; this suite only renders it).
 */
export function twoPhaseIlp(options: TwoPhaseIlpOptions = {}): Promise<TwoPhaseIlpResult> {
  return runCachedSuite("two-phase-ilp", twoPhaseBenchmark, options);
}

const f2 = (x: number) => x.toFixed(2);
const prf = (x: Prf) => `${f2(x.precision)} / ${f2(x.recall)} / ${f2(x.f1)}`;
const pValue = (p: number) => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4));
const signed = (x: number) => `${x >= 0 ? "+" : ""}${f2(x)}`;
const delta = (s: Significance) =>
  `${signed(s.delta)} [${f2(s.interval[0])}, ${f2(s.interval[1])}] p = ${pValue(s.pValue)}`;
const times = (t: TimeDistribution) =>
  t.sentences === 0 ? "–" : `${t.median.toFixed(1)} / ${t.p95.toFixed(1)} / ${t.max.toFixed(1)}`;
const parameter = (s: SystemResult) =>
  s.parameter === null ? "–" : `${s.parameter.name === "tau" ? "τ" : "×"} ${s.parameter.value}`;

function datasetMarkdown(r: TwoPhaseDatasetResult): string {
  const m = r.models;
  const model = (x: typeof m.final) =>
    `${x.trainedOn} sequences, ${x.features} features${x.cached ? ", cached" : `, ${x.seconds.toFixed(1)} s`}`;
  const families = Object.entries(r.rules.perFamily)
    .map(([f, k]) => `${f} ${k}`)
    .join(", ");
  const fieldUnit =
    r.systems[0]?.fields.unit === "segments"
      ? "field P / R / F1 (segments at every level)"
      : "field P / R / F1 (conlleval chunks)";
  const allRules = r.systems.find((s) => s.decoder === "two-phase" && s.families.length > 1);
  const soft = r.systems.find((s) => s.decoder === "soft-dd");
  const viterbi = r.systems.find((s) => s.decoder === "viterbi");
  const types = Object.entries(viterbi?.tokens.perType ?? {})
    .filter(([type]) => type !== "O")
    .sort((a, b) => b[1].support - a[1].support)
    .slice(0, 15)
    .map(([type]) => type);
  const ratio = r.timing[2] === undefined ? "–" : `${r.softDdOverIlp.toFixed(2)}×`;
  return [
    `#### ${r.title}`,
    "",
    `${r.protocol}. CRF: ${r.preset} preset, ${r.labels} labels; reported model ${model(m.final)}; tuning model ${model(m.tuning)}. Test: ${r.sizes.test} sequences, ${r.sizes.testTokens} tokens.`,
    "",
    `Rules (counting miner, cost ${r.rules.cost}, support ≥ ${r.rules.minSupport}, confidence ≥ ${r.rules.minConfidence}, over the kinds ${r.rules.keys.join(", ")}${r.rules.includeOutside ? " and O" : ""}): ${r.rules.mined} of ${r.rules.candidates} candidates — ${families}.`,
    "",
    "**Quality** (token figures over label types, B-/I- prefixes stripped at every level: fersini2014 Eqs. 31–34; micro P = R = F = accuracy when O is included)",
    "",
    markdownTable(
      [
        "system",
        "τ / scale",
        "rules",
        "token acc",
        "label acc",
        "micro P / R / F (O excl.)",
        "macro P / R / F (O incl.)",
        "macro P / R / F (O excl.)",
        fieldUnit,
      ],
      r.systems.map((s) => [
        s.name,
        parameter(s),
        s.rules,
        s.tokens.accuracy,
        s.tokens.labelAccuracy,
        prf(s.tokens.withoutOutside.micro),
        prf(s.tokens.withOutside.macro),
        prf(s.tokens.withoutOutside.macro),
        prf(s.fields),
      ]),
    ),
    "**Against Viterbi, and cost** (paired bootstrap over sentences, two-sided: Δ [95 % interval] p; ILP time per sentence = the decoder's `solveMs`, median / p95 / max; first-pass decoding = scores → labels over the split by a fresh tagger, cold constraint caches included)",
    "",
    markdownTable(
      [
        "system",
        "Δ token acc",
        "Δ field F1",
        "changed",
        "ILP called",
        "time-limit hits",
        "ILP ms (called)",
        "ILP ms (all)",
        "first-pass decoding ms",
        "violation cost Viterbi → output",
      ],
      r.systems.map((s) => [
        s.name,
        s.significance === null ? "–" : delta(s.significance.accuracy),
        s.significance === null ? "–" : delta(s.significance.f1),
        s.changed,
        s.ilp === null ? "–" : s.ilp.called,
        s.ilp === null ? "–" : s.ilp.timeLimitHits,
        s.ilp === null ? "–" : times(s.ilp.calledTime),
        s.ilp === null ? "–" : times(s.ilp.allTime),
        s.decodingMs,
        s.ilp === null
          ? "–"
          : `${s.ilp.violationCost.viterbi.toFixed(3)} → ${s.ilp.violationCost.output.toFixed(3)}`,
      ]),
    ),
    ...(soft?.softDd == null
      ? []
      : [
          `Soft-DD (all rules, penalty = rule cost × ${soft.parameter?.value}): ${soft.softDd.certified.toFixed(1)} % certified, ${soft.softDd.meanIterations.toFixed(2)} mean iterations.`,
          "",
        ]),
    "**Per-label token F** (the most frequent types, O aside)",
    "",
    markdownTable(
      ["type", "gold tokens", "CRF-Viterbi", "two-phase: all rules", "Soft-DD: all rules"],
      types.map((type) => [
        type,
        viterbi?.tokens.perType[type]?.support ?? 0,
        viterbi?.tokens.perType[type]?.f1 ?? 0,
        allRules?.tokens.perType[type]?.f1 ?? 0,
        soft?.tokens.perType[type]?.f1 ?? 0,
      ]),
    ),
    "**Held-out choice of τ and of the Soft-DD scale** (token accuracy on the held-out part per grid value; the best, the first on ties)",
    "",
    markdownTable(
      ["system", "held-out token accuracy per value", "chosen"],
      r.selection.map((s) => [
        s.system,
        s.grid.length === 0
          ? (s.note ?? "–")
          : s.grid.map((g) => `${g.value}: ${f2(g.accuracy)}`).join(" · "),
        `${s.parameter === "tau" ? "τ" : "×"} ${s.chosen}`,
      ]),
    ),
    "**Decode time** (the timing harness: the Tagger path of `lagrange tag`, warm, alternating runs, medians)",
    "",
    timingTable(r.timing),
    `Soft-DD / two-phase ILP decoding time (all rules): ${ratio}.`,
    "",
    "**The 10 most important mined rules** (the miner's order: cost, then support)",
    "",
    markdownTable(
      ["rule", "family", "support", "violations", "confidence %", "cost"],
      r.rules.top.map((x) => [
        x.rule,
        x.family,
        x.support,
        x.violations,
        x.confidence,
        x.cost.toFixed(4),
      ]),
    ),
  ].join("\n");
}

export function twoPhaseIlpMarkdown(r: TwoPhaseIlpResult): string {
  const s = r.setup;
  const generated = r.datasets.some((d) => d.generated);
  return [
    `### two-phase-ilp (fersini2014${generated ? " — GENERATED citations, a smoke run, not the paper's data" : ""})`,
    "",
    `CRF: L-BFGS ${s.crfIterations} iterations, c2 = 1. Two-phase ILP (HiGHS): per-sentence time limit ${s.timeLimitMs} ms; τ per system chosen on held-out data. Soft-DD: the same rules, penalty = rule cost × a scale chosen on the same held-out data. Paired bootstrap: ${s.bootstrapSamples} samples, seed ${s.seed}. Timing: ${s.timingRuns} timed runs. Node ${r.node}.`,
    "",
    ...skippedLines(r.unavailable.map((u) => `${u.id} (${u.reason})`)),
    ...r.datasets.map(datasetMarkdown),
    '**The paper\'s numbers beside ours** (fersini2014 gives only these in its text; its Tables 5–8 are missing; "two-phase" = its CRF-Soft with all constraints)',
    "",
    markdownTable(
      [
        "split",
        "measure",
        "paper Viterbi",
        "paper two-phase",
        "paper other",
        "our Viterbi",
        "our two-phase",
      ],
      r.comparison.map((c) => [
        c.split,
        c.measure,
        c.paperViterbi ?? "–",
        c.paperTwoPhase,
        c.paperOther ?? "–",
        c.viterbi,
        c.twoPhase,
      ]),
    ),
    "**Targets**",
    "",
    targetsTable(r.targets),
  ].join("\n");
}
