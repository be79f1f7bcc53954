import { LagrangeError, type TransitionMask } from "@lagrange/core";
import { LabelSchemeError, SCHEME_NAMES, type SchemeName, type SchemeOptions } from "./labels.js";
import type { PartialLabel } from "./partial-labels.js";
import { extractSpans, type Span } from "./spans.js";
import { allowedTransitions, findViolations, type SchemeViolation } from "./validity.js";

/**
 * A label scheme as every app and model file names it: a chunk scheme, `hierarchical-BIO` (IOB2 at
 * every `/` level: the UMass citation labels), or `none` (plain tags such as POS, where every
 * sequence is valid and nothing is masked).
 */
export type LabelScheme = SchemeName | "hierarchical-BIO" | "none";

export const LABEL_SCHEMES: readonly LabelScheme[] = [...SCHEME_NAMES, "hierarchical-BIO", "none"];

/** A scheme name from a command line or a model file; unknown names are a usage error. */
export function parseLabelScheme(name: string, where = "scheme"): LabelScheme {
  if ((LABEL_SCHEMES as readonly string[]).includes(name)) return name as LabelScheme;
  throw new LagrangeError(
    "usage",
    `${where}: unknown label scheme ${JSON.stringify(name)}; expected one of ${LABEL_SCHEMES.join(", ")}`,
  );
}

/** The chunk scheme and its options that a label scheme other than `none` reads labels with. */
export function chunkScheme(scheme: Exclude<LabelScheme, "none">): [SchemeName, SchemeOptions] {
  return scheme === "hierarchical-BIO" ? ["IOB2", { levelSeparator: "/" }] : [scheme, {}];
}

/**
 * What a chain decoder must honour for output valid under `scheme` over a model's labels (ids in
 * the order of `labels`): the allowed transitions and the allowed first and last labels. Undefined
 * for `none`. The one place masks are computed: training, tagging, constraint learning, the bench
 * and the demo all call this.
 */
export function decodingMask(
  labels: readonly string[],
  scheme: LabelScheme,
): Required<TransitionMask> | undefined {
  if (scheme === "none") return undefined;
  const [name, options] = chunkScheme(scheme);
  return allowedTransitions(labels, name, options);
}

/**
 * The segments of one label sequence under `scheme` (none for `none`), at every level, as
 * {@link extractSpans} reads them: what a labelling says, whatever a decoder compiled.
 */
export function schemeSpans(labels: readonly string[], scheme: LabelScheme): Span[] {
  if (scheme === "none") return [];
  const [name, options] = chunkScheme(scheme);
  return extractSpans(labels, name, options);
}

/**
 * The violations of one label sequence under `scheme` (none for `none`). Unknown labels and label
 * sets of a partial annotation are skipped: only what the known labels fix is checked.
 */
export function schemeViolations(
  labels: readonly PartialLabel[],
  scheme: LabelScheme,
): SchemeViolation[] {
  if (scheme === "none") return [];
  const [name, options] = chunkScheme(scheme);
  return findViolations(labels, name, options);
}

/** Where an invalid gold sequence goes wrong: the sequence, the token, what is wrong. */
export interface SchemeProblem {
  readonly index: number;
  readonly position: number;
  readonly message: string;
}

/** How a corpus's gold sequences fare under a scheme. */
export interface SchemeCheck {
  readonly scheme: LabelScheme;
  readonly sequences: number;
  /** Sequences with a violation, or whose labels the scheme cannot read at all. */
  readonly invalid: number;
  /** The first invalid one. */
  readonly first?: SchemeProblem;
  /**
   * The first sequence with a label the scheme cannot read at all (`X-NP` under IOB2): no mask can
   * be built over such a label set, so no amount of tolerance lets it through.
   */
  readonly unreadable?: SchemeProblem;
}

/** Checks every gold sequence (partial annotations: see {@link schemeViolations}) against `scheme`. */
export function checkScheme(
  sequences: readonly (readonly PartialLabel[])[],
  scheme: LabelScheme,
): SchemeCheck {
  let invalid = 0;
  let first: SchemeProblem | undefined;
  let unreadable: SchemeProblem | undefined;
  sequences.forEach((labels, index) => {
    let problem: SchemeProblem | undefined;
    try {
      const violation = schemeViolations(labels, scheme)[0];
      if (violation !== undefined) {
        problem = { index, position: violation.position, message: violation.message };
      }
    } catch (error) {
      if (!(error instanceof LabelSchemeError)) throw error;
      problem = {
        index,
        position: error.position,
        message: `${scheme}: label ${JSON.stringify(error.label)}: ${error.detail}`,
      };
      unreadable ??= problem;
    }
    if (problem === undefined) return;
    invalid++;
    first ??= problem;
  });
  return {
    scheme,
    sequences: sequences.length,
    invalid,
    ...(first === undefined ? {} : { first }),
    ...(unreadable === undefined ? {} : { unreadable }),
  };
}

/**
 * The scheme under which the fewest gold sequences are invalid (ties: the order of preference
 * IOB2, IOB1, BIOES (BILOU when the labels spell it with L-/U-), IOE2, IOE1; `none` when no
 * label has a chunk prefix).
 * Hierarchical BIO is only a candidate when some label has a `/` level. Of a partial annotation
 * the labels a set names count towards the candidates; unknown labels say nothing.
 */
export function inferScheme(sequences: readonly (readonly PartialLabel[])[]): LabelScheme {
  let prefixed = false;
  let levelled = false;
  let bilou = false;
  const see = (label: string) => {
    if (/^[BIESLU]-/.test(label)) prefixed = true;
    if (/^[LU]-/.test(label)) bilou = true;
    if (label.includes("/")) levelled = true;
  };
  for (const labels of sequences) {
    for (const label of labels) {
      if (typeof label === "string") see(label);
      else for (const member of label ?? []) see(member);
    }
  }
  if (!prefixed) return "none";
  const candidates: LabelScheme[] = levelled
    ? ["hierarchical-BIO", "IOB2", "IOB1"]
    : bilou
      ? ["BILOU", "IOB2", "IOB1", "IOE2", "IOE1"]
      : ["IOB2", "IOB1", "BIOES", "IOE2", "IOE1"];
  let best = candidates[0]!;
  let fewest = Number.POSITIVE_INFINITY;
  for (const scheme of candidates) {
    const { invalid } = checkScheme(sequences, scheme);
    if (invalid < fewest) {
      fewest = invalid;
      best = scheme;
    }
  }
  return best;
}

/** How many invalid gold sequences training tolerates: a few annotation slips, not a wrong scheme. */
export function tolerableInvalid(sequences: number): number {
  return Math.max(3, Math.floor(sequences / 1000));
}

/** Names where a token of a sequence came from (`train.txt:1207`); by default `sequence 3, token 1`. */
export type SequenceLocator = (sequence: number, position: number) => string;

/**
 * Raised when a corpus's gold labels do not fit the scheme it would be trained or evaluated under:
 * a model trained so would decode under the wrong mask (a silent wrong model).
 */
export class SchemeMismatchError extends LagrangeError {
  override readonly name = "SchemeMismatchError";
  constructor(
    readonly check: SchemeCheck,
    readonly suggestion: LabelScheme | undefined,
    source: string,
    locate: SequenceLocator = defaultLocator,
  ) {
    const unreadable = check.unreadable;
    const first = check.first;
    const hint =
      suggestion === undefined || suggestion === check.scheme
        ? ""
        : `; these labels look like ${suggestion}: pass --scheme ${suggestion}`;
    super(
      "bad-input",
      unreadable !== undefined
        ? `${locate(unreadable.index, unreadable.position)}: ${unreadable.message}${hint}`
        : `${first === undefined ? source : locate(first.index, first.position)}: ${check.invalid} of ${check.sequences} gold sequences in ${source} are invalid under the ${check.scheme} scheme` +
            (first === undefined ? "" : ` (the first, here: ${first.message})`) +
            hint,
    );
  }
}

function defaultLocator(sequence: number, position: number): string {
  return `sequence ${sequence + 1}, token ${position + 1}`;
}

/**
 * Throws a {@link SchemeMismatchError} when a label cannot be read under `scheme` at all, or when
 * more than a few gold sequences (see {@link tolerableInvalid}) are invalid under it, with the
 * scheme that fits them better; otherwise returns the check (whose `invalid` count a caller may
 * report). `locate` turns a sequence and token into a place the user can open (`file:line`).
 */
export function requireScheme(
  sequences: readonly (readonly PartialLabel[])[],
  scheme: LabelScheme,
  source: string,
  locate?: SequenceLocator,
): SchemeCheck {
  const check = checkScheme(sequences, scheme);
  if (check.unreadable !== undefined || check.invalid > tolerableInvalid(sequences.length)) {
    throw new SchemeMismatchError(check, inferScheme(sequences), source, locate);
  }
  return check;
}
