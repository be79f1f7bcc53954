import { type CrfModel, type Preset, tokenMarginals } from "@lagrange/chain-crf";
import {
  constraintInstantiator,
  constraintLattice,
  decodedTemplates,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import {
  type ChainScores,
  type DecodeOptions,
  type Decoder,
  type DecoderDefinition,
  type DecoderOptionValue,
  type DecoderRegistry,
  type Decoding,
  type IterationStats,
  LagrangeError,
  type LinearConstraint,
  resolveDecoderOptions,
  scoreLabelling,
} from "@lagrange/core";
import { constraintEffects, decodingMultipliers } from "@lagrange/core/dual-decomposition";
import { extractSpans, type Sentence, type Span, tokenizeCitation } from "@lagrange/datasets";
import {
  checkDecoderUse,
  InfeasibleSentenceError,
  modelDecodingConstraints,
  modelPreset,
  modelScheme,
  sentenceAttributes,
  standardDecoders,
} from "@lagrange/recipes/browser";

/** A labelling with its nested spans (hierarchical labels: `authors` ⊃ `authors/person` ⊃ …). */
export interface LabelledSpans {
  /** One label name per token. */
  readonly labels: readonly string[];
  /** Every level's spans, ordered by start and then by level (a parent before its children). */
  readonly spans: readonly Span[];
}

/** A constraint that shaped the constrained labelling, in numbers and in words. */
export interface FiredConstraint {
  /** Its rule in words (the template's name), e.g. "at most 1 authors segment". */
  readonly name: string;
  /** The learned penalty per unit of violation; `null` for a hard constraint. */
  readonly penalty: number | null;
  /** Violation by the Viterbi labelling (the chain alone). */
  readonly violationBefore: number;
  /** Violation by the constrained labelling. */
  readonly violationAfter: number;
  /** The final multiplier λ (0 for decoders without one). */
  readonly multiplier: number;
  /** What happened, as a sentence a reader of the page understands. */
  readonly sentence: string;
}

/** One iteration of an iterative decoder: the dual bound and the best primal so far. */
export interface ObjectivePoint {
  readonly iteration: number;
  readonly dual: number;
  readonly primal: number;
}

/** Everything the playground shows about one citation. */
export interface CitationInspection {
  readonly tokens: readonly string[];
  /** The decoder that produced `constrained`. */
  readonly decoder: string;
  /**
   * The master's step it ran with (`subgradient`, `ad3`, `auto`) when it is a dual-decomposition decoder
   * (one that declares the `step` option); null for the others.
   */
  readonly step: string | null;
  readonly viterbi: LabelledSpans;
  readonly constrained: LabelledSpans;
  /** Constraints whose violation differs between the two labellings or that pushed (λ > 0). */
  readonly fired: readonly FiredConstraint[];
  /** Constraints instantiated for this citation (fired or not). */
  readonly constraintCount: number;
  /**
   * The constraint rules (templates) they come from: {@link constraintRules}'s `decoded`, 0 for a
   * decoder that takes none. Equals `constraintCount` for the count families the page ships.
   */
  readonly rules: number;
  /**
   * One point per iteration when the decoder reports its iterations (`traced`); else a single
   * point: its final objective (the dual is the primal where it has no finite bound).
   */
  readonly objective: readonly ObjectivePoint[];
  readonly traced: boolean;
  /** Iterations the decoder reported (1 for a one-shot decoder). */
  readonly iterations: number;
  readonly status: Decoding["status"];
  readonly certified: boolean;
  /** The decoding's bound (−∞/+∞ where it proved none; undefined for a decoder without one). */
  readonly dual: number | undefined;
  /** The score of its labelling under the decoder's objective. */
  readonly primal: number;
  /** dual − primal (0 for an exact decoder). */
  readonly gap: number;
  /** The model's label names, in id order: the columns of `marginals`. */
  readonly labelNames: readonly string[];
  /** p(label of token i = l) under the model and its scheme's mask, one row of L per token. */
  readonly marginals: readonly Float64Array[];
  /** Milliseconds spent by the chosen decoder on this citation (scoring and features excluded). */
  readonly decodeMs: number;
}

/** Whether a registered decoder can decode this model under the loaded constraints, and if not why. */
export interface DecoderChoice {
  readonly name: string;
  readonly description: string;
  readonly usable: boolean;
  /** Why not (when unusable), or a note on how it decodes (e.g. it ignores the constraints). */
  readonly note: string | null;
  /** It decodes the chain alone: the loaded constraints are not given to it. */
  readonly ignoresConstraints: boolean;
  /**
   * The master's steps it can run (`subgradient`, `ad3`, `auto`): the choices of the `step` option a
   * dual-decomposition decoder declares; empty for a decoder without one.
   */
  readonly steps: readonly string[];
}

/** How many rules a constraints file holds, and how many of them a decoder is given. */
export interface ConstraintRules {
  /** Entries of the file. */
  readonly entries: number;
  /** Entries with a penalty other than 0: the rules every constrained decoder is given. */
  readonly decoded: number;
  /** Entries whose learned penalty is 0: they cannot change a labelling and are left out. */
  readonly zeroPenalty: number;
}

/**
 * The rules of a constraints file as the decoders see them (the constraint-templates package's
 * own filter): the one count the page shows, in its sources line and under "fired".
 */
export function constraintRules(entries: readonly WeightedTemplate[]): ConstraintRules {
  const decoded = decodedTemplates(entries).length;
  return { entries: entries.length, decoded, zeroPenalty: entries.length - decoded };
}

/** The choices of the `step` option a decoder declares (empty: it has none). */
export function stepsOf(definition: DecoderDefinition): readonly string[] {
  const spec = definition.options?.find((o) => o.name === "step" && o.type === "choice");
  return spec?.choices ?? [];
}

/** The tokens of a pasted citation, split the way the UMass files are. */
export function citationTokens(text: string): string[] {
  return tokenizeCitation(text);
}

/**
 * Every decoder in the registry, in registration order, with whether it can decode a linear-chain
 * model here: its asynchronous set-up (HiGHS) is attempted once, and a failure makes it unusable
 * with the error's message. The rules are the CLI's (`checkDecoderUse`): a decoder that takes no
 * constraints decodes the chain alone, a constrained one needs constraints, and one made for a
 * general CRF's higher-order patterns needs constraints to have anything to decode beside them.
 */
export async function decoderChoices(
  registry: DecoderRegistry,
  given: { readonly constraints: boolean },
): Promise<DecoderChoice[]> {
  const choices: DecoderChoice[] = [];
  for (const definition of registry.decoders()) {
    const { name, description } = definition;
    const steps = stepsOf(definition);
    const takesConstraints = definition.accepts.constraints;
    try {
      await registry.prepare(name);
    } catch (error) {
      choices.push({
        name,
        description,
        usable: false,
        note: `cannot be set up in this page: ${messageOf(error)}`,
        ignoresConstraints: false,
        steps,
      });
      continue;
    }
    try {
      checkDecoderUse(registry, name, {
        constraints: given.constraints && takesConstraints,
        slaves: [],
      });
      choices.push({
        name,
        description,
        usable: true,
        note:
          takesConstraints || !given.constraints
            ? null
            : "takes no constraints: decodes the chain alone",
        ignoresConstraints: !takesConstraints,
        steps,
      });
    } catch (error) {
      // A dual decomposition over higher-order patterns (it takes slaves too, unlike the ILP).
      const generalCrf = definition.accepts.patterns === true && definition.accepts.slaves;
      choices.push({
        name,
        description,
        usable: false,
        note: generalCrf
          ? `${messageOf(error)}; it is made for a general CRF's higher-order patterns, which a linear-chain model has none of`
          : messageOf(error),
        ignoresConstraints: false,
        steps,
      });
    }
  }
  return choices;
}

export interface CitationInspectorOptions {
  readonly model: CrfModel;
  /** Default: recipes' standard registry. */
  readonly registry?: DecoderRegistry;
  /** A registered decoder name; prepare it first (`registry.prepare`) when it has a set-up. */
  readonly decoder: string;
  /** Learned constraints (a constraints file's entries); ignored by decoders that take none. */
  readonly constraints?: readonly WeightedTemplate[];
  /**
   * The decoder's options by their declared names (`step`, `max-iterations`, …), as `lagrange tag`
   * takes them: checked against the decoder's declaration (a usage error when it has no such
   * option or the value does not fit), the others at their defaults.
   */
  readonly decoderOptions?: Readonly<Record<string, string | DecoderOptionValue>>;
  /** Per-call options of the decoder (iteration cap, tolerance, time limit). */
  readonly decodeOptions?: DecodeOptions;
}

/**
 * The playground's pipeline for one model, decoder and constraint set: a citation in, both
 * labellings with their nested spans, the constraints that fired, the objective per iteration
 * and the token marginals out. The chain scores are `lagrange tag`'s (the model's scorer under its
 * scheme's mask), decoded twice: by Viterbi, and by the decoder under the learned constraints.
 */
export class CitationInspector {
  readonly model: CrfModel;
  readonly decoder: string;
  /** The master's step (a dual-decomposition decoder's `step` option); null for other decoders. */
  readonly step: string | null;
  readonly #preset: Preset;
  readonly #viterbi: Decoder;
  readonly #constrained: Decoder;
  readonly #decodeOptions: DecodeOptions;
  readonly #constraintsFor:
    | ((instance: { n: number; L: number; tokens: readonly string[] }) => LinearConstraint[])
    | undefined;
  readonly #scorer;
  readonly #nesting: { readonly levelSeparator: string } | undefined;
  readonly #rules: number;
  #objective: ObjectivePoint[] = [];

  constructor(options: CitationInspectorOptions) {
    const { model, decoder } = options;
    this.model = model;
    this.decoder = decoder;
    this.#preset = modelPreset(model);
    this.#scorer = model.scorer(modelDecodingConstraints(model));
    this.#nesting = modelScheme(model) === "hierarchical-BIO" ? { levelSeparator: "/" } : undefined;
    const registry = options.registry ?? standardDecoders();
    this.#viterbi = registry.create("viterbi");
    const definition = registry.decoder(decoder);
    const takesConstraints = definition.accepts.constraints;
    const declared = resolveDecoderOptions(definition, options.decoderOptions ?? {});
    this.step = typeof declared.step === "string" ? declared.step : null;
    const record = (stats: IterationStats) => {
      this.#objective.push({ iteration: stats.iteration, dual: stats.dual, primal: stats.primal });
    };
    if (options.constraints !== undefined && constraintLattice(options.constraints)?.expanded) {
      // The page shows label marginals and spans of the model's labels, not of split states.
      throw new LagrangeError(
        "usage",
        "constraints on IOB1/IOE1 labels decode over split states the playground does not show; use `lagrange tag`, or data converted to IOB2",
      );
    }
    this.#rules =
      takesConstraints && options.constraints !== undefined
        ? constraintRules(options.constraints).decoded
        : 0;
    checkDecoderUse(registry, decoder, {
      constraints: takesConstraints && options.constraints !== undefined,
      slaves: [],
    });
    this.#constrained = registry.create(decoder);
    this.#constraintsFor =
      takesConstraints && options.constraints !== undefined
        ? constraintInstantiator(options.constraints)
        : undefined;
    this.#decodeOptions = { ...declared, ...options.decodeOptions, onIteration: record };
  }

  /** Inspects a citation given as text (tokenized like the UMass files) or as tokens. */
  inspect(citation: string | readonly string[]): CitationInspection {
    const tokens = typeof citation === "string" ? citationTokens(citation) : [...citation];
    if (tokens.length === 0) throw new LagrangeError("bad-input", "the citation has no tokens");
    const sentence: Sentence = { tokens, columns: [tokens] };
    const scores = this.#scorer.score(sentenceAttributes(this.#preset, sentence));
    const L = this.model.numLabels;
    const viterbi = this.#viterbi.decode({ scores });
    this.#objective = [];
    const constraints = this.#constraintsFor?.({ n: scores.n, L, tokens }) ?? [];
    const started = performance.now();
    const decoding = this.#constrained.decode(
      constraints.length === 0 ? { scores } : { scores, constraints },
      this.#decodeOptions,
    );
    const decodeMs = performance.now() - started;
    if (decoding.status === "infeasible") throw new InfeasibleSentenceError(decoding);
    const flat = tokenMarginals(scores);
    const marginals = tokens.map((_, i) => flat.slice(i * L, (i + 1) * L));
    const names = (labels: Int32Array) => this.model.labels.decode(labels);
    return {
      tokens,
      decoder: this.decoder,
      step: this.step,
      viterbi: this.#spans(names(viterbi.labels)),
      constrained: this.#spans(names(decoding.labels)),
      fired: firedConstraints(constraints, viterbi.labels, decoding, L),
      constraintCount: constraints.length,
      rules: this.#rules,
      objective: this.#objective.length > 0 ? this.#objective : [finalObjective(decoding, scores)],
      traced: this.#objective.length > 0,
      iterations: decoding.iterations,
      status: decoding.status,
      certified: decoding.certified,
      dual: decoding.dual,
      primal: decoding.primal,
      gap: decoding.gap,
      labelNames: this.model.labels.names(),
      marginals,
      decodeMs,
    };
  }

  #spans(labels: readonly string[]): LabelledSpans {
    // A flat scheme's labels are one level; a hierarchical one's nest on "/".
    return { labels, spans: extractSpans(labels, "IOB2", this.#nesting ?? {}) };
  }
}

/**
 * core's `constraintEffects` measured against the real Viterbi labelling rather than the decoder's
 * first iterate (which only a dual-decomposition decoder has), so that "before" means the same for
 * every decoder: the constraints whose violation differs between the two labellings or that pushed
 * on the scores (λ > 0), most violation removed first, each with its penalty and a sentence.
 */
export function firedConstraints(
  constraints: readonly LinearConstraint[],
  viterbiLabels: Int32Array,
  decoding: Decoding,
  L: number,
): FiredConstraint[] {
  const measured: Decoding = {
    ...decoding,
    constraintStats: {
      multipliers: decodingMultipliers(decoding),
      firstLabels: viterbiLabels,
      firstViolated: decoding.constraintStats?.firstViolated ?? 0,
      violated: decoding.constraintStats?.violated ?? 0,
      hardViolated: decoding.constraintStats?.hardViolated ?? 0,
    },
  };
  return constraintEffects(constraints, measured, L).map((effect) => {
    const penalty = constraints[effect.index]!.penalty ?? null;
    const { name, violationBefore, violationAfter, multiplier } = effect;
    return {
      name,
      penalty,
      violationBefore,
      violationAfter,
      multiplier,
      sentence: inWords(name, penalty, violationBefore, violationAfter, multiplier),
    };
  });
}

function inWords(
  name: string,
  penalty: number | null,
  before: number,
  after: number,
  multiplier: number,
): string {
  const cost = penalty === null ? "a hard constraint" : `penalty ${penalty.toFixed(2)} per unit`;
  const units = (x: number) => `${formatCount(x)} unit${x === 1 ? "" : "s"}`;
  let story: string;
  if (before > 0 && after === 0)
    story = `Viterbi broke it by ${units(before)}; the constrained labelling keeps it.`;
  else if (before > after)
    story = `Viterbi broke it by ${units(before)}; the constrained labelling by only ${units(after)}.`;
  else if (after > before) {
    story = `the constrained labelling breaks it by ${units(after)} (Viterbi by ${units(before)}): paying its penalty was cheaper than the alternatives.`;
  } else if (before > 0)
    story = `both labellings break it by ${units(before)}; its multiplier still pushed on the scores.`;
  else story = "both labellings keep it; its multiplier pushed on the scores to keep it so.";
  const lambda = multiplier > 0 ? ` (λ = ${multiplier.toFixed(2)})` : "";
  return `“${name}” (${cost})${lambda}: ${story}`;
}

function formatCount(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

/**
 * The one point of a decoder that reports no iterations: its primal, or where it has none (mean
 * field, bcrf) the chain score of its labelling (−∞ when that labelling breaks the scheme's
 * transitions, which those approximate decoders do not enforce); its dual, or the primal where it
 * has no finite bound.
 */
function finalObjective(decoding: Decoding, scores: ChainScores): ObjectivePoint {
  const primal = Number.isFinite(decoding.primal)
    ? decoding.primal
    : scoreLabelling(scores, decoding.labels);
  const dual =
    decoding.dual !== undefined && Number.isFinite(decoding.dual) ? decoding.dual : primal;
  return { iteration: 1, dual, primal };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
