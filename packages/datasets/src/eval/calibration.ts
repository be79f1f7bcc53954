/**
 * Calibration of token confidences: does a label predicted with probability 0.8 turn out right
 * 80 % of the time? Expected calibration error (Guo et al. 2017) over equal-width bins, the
 * maximum calibration error, the Brier score of the predicted label, a reliability diagram, and the
 * reader of `lagrange tag --marginals` output (gold, prediction, confidence as the last columns).
 */
import { DataFormatError } from "../formats/errors.js";

/** One equal-width bin of confidences, [lower, upper) (the last one closed). */
export interface CalibrationBin {
  readonly lower: number;
  readonly upper: number;
  /** Predictions whose confidence falls in the bin. */
  readonly count: number;
  /** Mean confidence of those predictions (NaN when the bin is empty). */
  readonly confidence: number;
  /** Share of them that are correct (NaN when the bin is empty). */
  readonly accuracy: number;
}

export interface Calibration {
  /** Predictions scored. */
  readonly count: number;
  /** Share correct. */
  readonly accuracy: number;
  /** Mean confidence. */
  readonly confidence: number;
  /** Σ_b (n_b / n) |accuracy_b − confidence_b|. */
  readonly ece: number;
  /** max_b |accuracy_b − confidence_b| over non-empty bins. */
  readonly mce: number;
  /** Mean (confidence − correct)² of the predicted label (a binary Brier score). */
  readonly brier: number;
  readonly bins: readonly CalibrationBin[];
}

/** Guo et al.'s (2017) 15 equal-width bins. */
export const CALIBRATION_BINS = 15;

/**
 * Calibration of `confidence[k]` (the probability given to prediction k) against `correct[k]`.
 * Confidences must lie in [0, 1] (a RangeError names the first that does not).
 */
export function calibration(
  confidence: ArrayLike<number>,
  correct: ArrayLike<boolean>,
  bins: number = CALIBRATION_BINS,
): Calibration {
  if (confidence.length !== correct.length) {
    throw new RangeError(
      `calibration: ${confidence.length} confidences but ${correct.length} outcomes`,
    );
  }
  if (!Number.isInteger(bins) || bins < 1) {
    throw new RangeError(`calibration: bins: expected an integer ≥ 1, got ${bins}`);
  }
  const n = confidence.length;
  const count = new Float64Array(bins);
  const sumConfidence = new Float64Array(bins);
  const sumCorrect = new Float64Array(bins);
  let right = 0;
  let total = 0;
  let brier = 0;
  for (let k = 0; k < n; k++) {
    const p = confidence[k]!;
    if (!(p >= 0 && p <= 1)) {
      throw new RangeError(`calibration: confidence ${k}: expected a number in [0, 1], got ${p}`);
    }
    const y = correct[k] ? 1 : 0;
    let b = Math.min(bins - 1, Math.floor(p * bins));
    // p·bins rounds below b at some edges (p = 15/22): the bin must be the one its edges state.
    if (b + 1 < bins && p >= (b + 1) / bins) b++;
    else if (b > 0 && p < b / bins) b--;
    count[b]!++;
    sumConfidence[b]! += p;
    sumCorrect[b]! += y;
    right += y;
    total += p;
    brier += (p - y) ** 2;
  }
  const out: CalibrationBin[] = [];
  let ece = 0;
  let mce = 0;
  for (let b = 0; b < bins; b++) {
    const c = count[b]!;
    const meanConfidence = c === 0 ? Number.NaN : sumConfidence[b]! / c;
    const accuracy = c === 0 ? Number.NaN : sumCorrect[b]! / c;
    if (c > 0) {
      const gap = Math.abs(accuracy - meanConfidence);
      ece += (c / n) * gap;
      mce = Math.max(mce, gap);
    }
    out.push({
      lower: b / bins,
      upper: (b + 1) / bins,
      count: c,
      confidence: meanConfidence,
      accuracy,
    });
  }
  return {
    count: n,
    accuracy: n === 0 ? Number.NaN : right / n,
    confidence: n === 0 ? Number.NaN : total / n,
    ece,
    mce,
    brier: n === 0 ? Number.NaN : brier / n,
    bins: out,
  };
}

/** Gold, prediction and confidence of each token of a CoNLL file (the last three columns). */
export interface ConfidenceColumns {
  readonly gold: string[];
  readonly predicted: string[];
  readonly confidence: Float64Array;
  /** The file without its last column: what conlleval scores. */
  readonly labelText: string;
}

/**
 * Whether a prediction file looks like `lagrange tag --marginals` output: its first token lines
 * all end in a probability, some with a decimal point (0.93, 1e-05), so that a file of 0/1 labels
 * is not taken for one.
 */
export function endsInConfidences(text: string): boolean {
  let decimals = 0;
  for (const line of text.split("\n", 200)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 3 || fields[0] === "-DOCSTART-") continue;
    const last = fields[fields.length - 1]!;
    if (!(Number(last) >= 0 && Number(last) <= 1) || !/^[\d.e+-]+$/.test(last)) return false;
    if (/[.e]/.test(last)) decimals++;
  }
  return decimals > 0;
}

/**
 * Reads `lagrange tag --marginals` output: each token line ends with gold, prediction and the
 * prediction's probability; blank lines and `-DOCSTART-` lines pass through. A line with fewer
 * than three columns or a last column that is not a probability is a DataFormatError at its line.
 */
export function readConfidenceColumns(text: string, file = "<input>"): ConfidenceColumns {
  const gold: string[] = [];
  const predicted: string[] = [];
  const confidence: number[] = [];
  const kept: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("-DOCSTART-")) {
      kept.push(line);
      continue;
    }
    const fields = trimmed.split(/\s+/);
    if (fields.length < 3) {
      throw new DataFormatError(
        file,
        i + 1,
        `expected gold, prediction and confidence as the last three columns (lagrange tag --marginals), got ${fields.length} column(s)`,
      );
    }
    const last = fields[fields.length - 1]!;
    const p = Number(last);
    if (!(p >= 0 && p <= 1) || !/^[0-9.eE+-]+$/.test(last)) {
      throw new DataFormatError(
        file,
        i + 1,
        `expected the last column to be the predicted label's probability in [0, 1] (lagrange tag --marginals), got ${JSON.stringify(last)}`,
      );
    }
    gold.push(fields[fields.length - 3]!);
    predicted.push(fields[fields.length - 2]!);
    confidence.push(p);
    // Cut the last field off the line itself: the delimiters conlleval is told (-d) stay.
    const end = line.trimEnd();
    kept.push(end.slice(0, end.length - last.length).trimEnd());
  }
  return {
    gold,
    predicted,
    confidence: Float64Array.from(confidence),
    labelText: kept.join("\n"),
  };
}

/** {@link calibration} of a file's confidences against its gold labels. */
export function calibrationOfColumns(
  columns: ConfidenceColumns,
  bins: number = CALIBRATION_BINS,
): Calibration {
  const correct = columns.gold.map((g, k) => g === columns.predicted[k]);
  return calibration(columns.confidence, correct, bins);
}

/** The report `lagrange eval --confidence` prints: the figures, then one line per non-empty bin. */
export function formatCalibrationReport(c: Calibration): string {
  const f = (x: number, digits = 4) => (Number.isNaN(x) ? "-" : x.toFixed(digits));
  const lines = [
    `calibration of ${c.count} token confidences (${c.bins.length} equal-width bins): ECE ${f(c.ece)}; MCE ${f(c.mce)}; Brier ${f(c.brier)}; accuracy ${f(100 * c.accuracy, 2)}%; mean confidence ${f(100 * c.confidence, 2)}%`,
    "      bin    tokens  confidence  accuracy",
  ];
  for (const b of c.bins) {
    if (b.count === 0) continue;
    lines.push(
      `${f(b.lower, 3)}-${f(b.upper, 3)} ${String(b.count).padStart(8)}  ${f(b.confidence).padStart(10)}  ${f(b.accuracy).padStart(8)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A reliability diagram as a self-contained SVG (no scripts, no external fonts): per bin a bar of
 * its accuracy, the gap to its mean confidence shaded, the diagonal of perfect calibration, and
 * the token share of each bin as a thin bar along the bottom.
 */
export function reliabilityDiagramSvg(c: Calibration, title = "Reliability diagram"): string {
  const W = 440;
  const M = { left: 56, right: 24, top: 40, bottom: 110 };
  const side = W - M.left - M.right;
  const H = M.top + side + M.bottom;
  const px = (x: number) => M.left + x * side;
  const py = (y: number) => M.top + (1 - y) * side;
  const r = (x: number) => Number(x.toFixed(2));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${escapeXml(title)}</text>`,
    `<text x="${W / 2}" y="33" text-anchor="middle">ECE ${c.ece.toFixed(4)}, MCE ${c.mce.toFixed(4)}, Brier ${c.brier.toFixed(4)}, ${c.count} tokens</text>`,
  ];
  for (const b of c.bins) {
    if (b.count === 0) continue;
    const x = px(b.lower);
    const w = r(px(b.upper) - x);
    parts.push(
      `<rect x="${r(x)}" y="${r(py(b.accuracy))}" width="${w}" height="${r(py(0) - py(b.accuracy))}" fill="#1f77b4" stroke="white"><title>${b.lower.toFixed(3)}–${b.upper.toFixed(3)}: ${b.count} tokens, confidence ${b.confidence.toFixed(4)}, accuracy ${b.accuracy.toFixed(4)}</title></rect>`,
    );
    const top = Math.max(b.accuracy, b.confidence);
    const gap = Math.abs(b.accuracy - b.confidence);
    parts.push(
      `<rect x="${r(x)}" y="${r(py(top))}" width="${w}" height="${r(gap * side)}" fill="#d62728" fill-opacity="0.35"/>`,
    );
  }
  parts.push(
    `<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(1)}" stroke="gray" stroke-dasharray="4 3"/>`,
    `<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(0)}" stroke="black"/>`,
    `<line x1="${px(0)}" y1="${py(0)}" x2="${px(0)}" y2="${py(1)}" stroke="black"/>`,
  );
  for (let k = 0; k <= 5; k++) {
    const t = k / 5;
    parts.push(
      `<line x1="${r(px(t))}" y1="${py(0)}" x2="${r(px(t))}" y2="${py(0) + 4}" stroke="black"/>`,
      `<text x="${r(px(t))}" y="${py(0) + 16}" text-anchor="middle">${t.toFixed(1)}</text>`,
      `<line x1="${px(0) - 4}" y1="${r(py(t))}" x2="${px(0)}" y2="${r(py(t))}" stroke="black"/>`,
      `<text x="${px(0) - 7}" y="${r(py(t) + 4)}" text-anchor="end">${t.toFixed(1)}</text>`,
    );
  }
  parts.push(
    `<text x="${W / 2}" y="${py(0) + 32}" text-anchor="middle">confidence of the predicted label</text>`,
    `<text x="14" y="${M.top + side / 2}" text-anchor="middle" transform="rotate(-90 14 ${M.top + side / 2})">accuracy</text>`,
  );
  // Tokens per bin on a log scale: most sit in the last bin, and the others would not show.
  const base = py(0) + 66;
  const most = Math.log1p(Math.max(1, ...c.bins.map((b) => b.count)));
  for (const b of c.bins) {
    if (b.count === 0) continue;
    const h = Math.max(1, (Math.log1p(b.count) / most) * 20);
    parts.push(
      `<rect x="${r(px(b.lower))}" y="${r(base - h)}" width="${r(px(b.upper) - px(b.lower))}" height="${r(h)}" fill="gray" stroke="white"><title>${b.count} tokens</title></rect>`,
    );
  }
  parts.push(
    `<text x="${W / 2}" y="${base + 14}" text-anchor="middle">tokens per bin (log scale)</text>`,
    `<text x="${W / 2}" y="${base + 30}" text-anchor="middle">blue: accuracy; red: gap to the mean confidence; dashed: perfect calibration</text>`,
    "</svg>",
  );
  return `${parts.join("\n")}\n`;
}
