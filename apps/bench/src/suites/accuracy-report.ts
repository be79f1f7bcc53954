import { markdownTable } from "../report.js";
import type {
  AccuracyDatasetResult,
  AccuracyResult,
  AccuracyRowName,
  ScoredSplit,
} from "./accuracy-datasets.js";
import { ACCURACY_ROWS } from "./accuracy-datasets.js";

/** What each row adds, for the report. */
const ROW_TITLES: Readonly<Record<AccuracyRowName, string>> = {
  baseline: "baseline (base feature preset)",
  clusters: "+ Brown clusters",
  lexicons: "+ lexicons (gazetteers, mined)",
  bioes: "+ BIOES inside",
  gazetteers: "+ large gazetteers (npm open data)",
  context: "+ document context (aggregation)",
  "wide-clusters": "+ Brown clusters C = 1000 too",
  embeddings: "+ PPMI-SVD k-means clusters (k = 100, 300, 1000)",
  preset: "the task preset as it ships",
  "elastic-net": "the preset with L1 too (elastic net)",
  words: "the preset on the word column alone (for text)",
  "two-stage": "+ two-stage votes",
  general: "+ general CRF (DD)",
  document: "+ document constraints",
};

// Markdown

export const f2 = (x: number) => x.toFixed(2);
export const signed = (x: number | null) => (x === null ? "" : `${x >= 0 ? "+" : ""}${f2(x)}`);
export const scoreCell = (s: ScoredSplit | null) =>
  s === null ? "—" : `${f2(s.score)} [${f2(s.interval[0])}, ${f2(s.interval[1])}]`;

export function datasetTable(r: AccuracyDatasetResult): string {
  const metric = r.metric === "accuracy" ? "token accuracy %" : `chunk F1 (${r.scheme})`;
  return markdownTable(
    [
      "row",
      `held-out ${metric} [95 % CI]`,
      "Δ",
      `dev ${metric} [95 % CI]`,
      "Δ",
      "train s",
      "iterations (stop)",
      "features",
      "model MB",
    ],
    r.rows.map((row) => [
      ROW_TITLES[row.row],
      scoreCell(row.heldOut),
      signed(row.heldOut.delta),
      scoreCell(row.dev),
      signed(row.dev?.delta ?? null),
      row.trainSeconds.toFixed(1),
      `${row.iterations} (${row.stopReason})`,
      row.numFeatures,
      (row.modelBytes / 1e6).toFixed(1),
    ]),
  );
}

export function datasetMarkdown(r: AccuracyDatasetResult): string {
  const lines = [
    `#### ${r.dataset} (${r.task}; ${r.trainSentences} training, ${r.heldOutSentences} held-out${r.devSentences === null ? "" : `, ${r.devSentences} dev`} sentences${r.devSentences === null ? ", no dev split" : ""}; ${r.maxIterations === null ? "L-BFGS stopped by the task preset's held-out rule" : `L-BFGS ≤ ${r.maxIterations} iterations`})`,
    "",
    datasetTable(r),
  ];
  for (const row of r.rows) {
    lines.push(`- ${ROW_TITLES[row.row]}: ${row.features}`);
    if (row.general !== undefined) {
      const g = row.general;
      const chosen =
        g.selection === undefined
          ? ""
          : `; chosen on its own held-out cut: ${g.selection.scale === 0 ? "the chain alone" : `${g.selection.epochs} epoch${g.selection.epochs === 1 ? "" : "s"} × scale ${g.selection.scale}`} (chain ${f2(g.selection.chainScore)}, general ${f2(g.selection.generalScore)})`;
      lines.push(
        `  perceptron mistakes per epoch ${g.mistakes.join(", ") || "none"}; ${(100 * g.certified).toFixed(1)} % of training decodings certified; ${g.linkedGroups} training groups with consistency factors${chosen}`,
      );
    }
    if (row.document !== undefined) {
      const t = row.document;
      const unit = t.groups === "documents" ? "documents" : "tweet groups";
      const check =
        t.checkGain === null
          ? `none kept (${t.reason ?? "no gain"})`
          : `kept ${t.constraints} for ${t.kept.join(", ")}, check-fold gain ${signed(t.checkGain.gain)} [${signed(t.checkGain.interval[0])}, ${signed(t.checkGain.interval[1])}]`;
      lines.push(
        `  ${check} on ${t.checkDocuments} ${unit} of the recipe's own check fold (of the cut); on ${r.devSentences === null ? "the held-out fold" : "dev"}: ${(100 * t.certified).toFixed(1)} % of ${t.documents} ${t.checkGain === null ? "sentences" : unit} certified, tagging ${t.tagSeconds.toFixed(2)} s against Viterbi's ${t.viterbiSeconds.toFixed(2)} s (× ${(t.tagSeconds / Math.max(1e-9, t.viterbiSeconds)).toFixed(2)})`,
      );
      if (t.dropped.length > 0) lines.push(`  dropped: ${t.dropped.join("; ")}`);
    }
    if (row.twoStage !== undefined) {
      const t = row.twoStage;
      lines.push(
        `  ${t.folds} first-stage folds + the full first stage (${t.firstStageSeconds.toFixed(1)} s); training tokens with a vote: ${t.voted.dtok} same word in the document, ${t.voted.dent} same entity string, ${t.voted.ctok} same word in the corpus`,
      );
    }
  }
  for (const s of r.skipped) lines.push(`- ${s.row}: not run (${s.why})`);
  for (const p of r.comparisons) {
    lines.push(
      `- ${p.from} → ${p.to} on ${p.split}: ${signed(p.delta)} points [${signed(p.interval[0])}, ${signed(p.interval[1])}], paired bootstrap p = ${p.pValue.toFixed(3)} (${p.samples} resamples, two-sided)`,
    );
  }
  for (const n of r.notes) lines.push(`- ${n}`);
  lines.push("");
  return lines.join("\n");
}

/** One line per dataset and split: each row's score, for the README. */
export function accuracySummaryTable(result: AccuracyResult): string {
  const rows = ACCURACY_ROWS.filter((row) =>
    result.datasets.some((d) => d.rows.some((r) => r.row === row)),
  );
  const body: string[][] = [];
  for (const d of result.datasets) {
    for (const split of ["held-out", "dev"] as const) {
      if (split === "dev" && d.devSentences === null) continue;
      body.push([
        d.dataset,
        d.metric === "accuracy" ? "UPOS acc." : "F1",
        split,
        ...rows.map((row) => {
          const found = d.rows.find((r) => r.row === row);
          const s = found === undefined ? null : split === "dev" ? found.dev : found.heldOut;
          return s === null ? "—" : f2(s.score);
        }),
      ]);
    }
  }
  return markdownTable(["dataset", "metric", "split", ...rows.map((r) => ROW_TITLES[r])], body);
}

export function accuracyMarkdown(result: AccuracyResult): string {
  const s = result.settings;
  const lines = [
    "### accuracy (issues 27 and 40: baseline → + clusters → + lexicons → + BIOES inside → + large gazetteers → + document context → + Brown C = 1000 → + PPMI-SVD clusters; the preset as it ships; + two-stage / + general CRF / + document constraints)",
    "",
    `${s.quick ? "**Quick smoke run** (small training sets, few iterations: not the bench's figures). " : ""}Held-out: ${s.heldOut}, cut from ${s.maxTrainSentences === null ? "the training split" : `the first ${s.maxTrainSentences} training sentences`}; dev: the registry's dev split (never a test split). L-BFGS with each task preset's stopping rule${s.maxIterations === null ? "" : `, at most ${s.maxIterations} iterations`}, ${s.threads} thread${s.threads === 1 ? "" : "s"}. Scores: conlleval chunk F1 under the corpus's scheme, token accuracy for UPOS; intervals: percentile bootstrap over sentences, ${s.bootstrapSamples} resamples, seed ${s.seed}. Tagging: the model's bytes through openTagger (as \`lagrange tag\`), Viterbi under the scheme's mask; the general CRF by its recorded decoder; document constraints, where kept, by theirs (Soft-DD, a document at a time). Node ${result.node}.`,
    "",
  ];
  if (result.unavailable.length > 0) {
    lines.push(
      `Not reachable, skipped: ${result.unavailable.map((u) => `${u.dataset} (${u.reason})`).join("; ")}.`,
      "",
    );
  }
  if (result.datasets.length > 0) {
    lines.push(
      "Δ: against the row each builds on — each chain row the one before it; two-stage, the general CRF and the document constraints each the last chain row (lexicons where the task has them), so each non-local step is measured alone.",
      "",
      accuracySummaryTable(result),
    );
  }
  for (const d of result.datasets) lines.push(datasetMarkdown(d));
  return lines.join("\n");
}
