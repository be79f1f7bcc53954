import {
  type AttributeSequence,
  type ChainScorer,
  type CrfModel,
  secondOrderDecoder,
} from "@lagrange/chain-crf";
import {
  constraintInstantiator,
  constraintLattice,
  documentInstantiator,
  type TemplateInstance,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import {
  type ChainScores,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderRegistry,
  type Decoding,
  type LabelRestriction,
  LagrangeError,
  type LinearConstraint,
  type SlaveDefinition,
  throwIfAborted,
} from "@lagrange/core";
import { restrictScores } from "@lagrange/core/chain";
import type { LabelScheme, SegmentLattice, Sentence } from "@lagrange/datasets";
import { chainDecoders, decoderCapabilities, needsConstraints } from "./decoders.js";
import { modelPreset, sentenceAttributes } from "./model-features.js";
import {
  modelDecodingConstraints,
  modelScheme,
  type SchemeEdge,
  schemeEdge,
} from "./model-scheme.js";
import { ownScores } from "./owned-scores.js";
import {
  type ConfidenceRequest,
  type LabellingConfidence,
  labellingConfidence,
} from "./tagging/confidence.js";
import { DEFAULT_DECODERS } from "./tagging/default-decoders.js";
import { decodeDocument } from "./tagging/document-tagger-decoding.js";
import { type NBestEntry, type NBestMethod, nbestMethodFor, nbestOf } from "./tagging/nbest.js";
import { spanProbabilities } from "./tagging/span-probability.js";

export interface TaggerOptions {
  readonly model: CrfModel;
  /** A decoder name in `registry` (default `viterbi`), or a decoder built elsewhere. */
  readonly decoder?: string | Decoder;
  /**
   * Default {@link chainDecoders} (the chain alone): every app passes its own, and the default
   * keeps the other decoders (HiGHS, mincut, bcrf) out of a page's bundle.
   */
  readonly registry?: DecoderRegistry;
  /** Learned constraints: weighted templates (a constraints file's entries are). */
  readonly constraints?: readonly WeightedTemplate[];
  /**
   * Plug-in slaves (names in `registry`) added to every sentence's problem, after the ones the
   * decoder's definition names itself (`withSlaves`).
   */
  readonly slaves?: readonly string[];
  /** Per-call options of the decoder (iteration cap, tolerance). */
  readonly decodeOptions?: DecodeOptions;
}

/**
 * No labelling of a sentence meets the hard constraints (or the transition mask): the decoder
 * proved it, so there is nothing to write. `conflict` names the constraints that cannot hold
 * together when the decoder found them (the ILP decoders do).
 */
export class InfeasibleSentenceError extends LagrangeError {
  override readonly name = "InfeasibleSentenceError";
  readonly conflict: readonly string[];
  constructor(decoding: Decoding) {
    const found = decoding as Decoding & {
      conflict?: readonly string[];
      conflictMinimal?: boolean;
    };
    const conflict = found.conflict ?? [];
    const shown = conflict.slice(0, SHOWN_CONFLICT_NAMES).map((c) => JSON.stringify(c));
    const more = conflict.length - shown.length;
    super(
      "bad-input",
      conflict.length === 0
        ? "no labelling meets the hard constraints and the label scheme's transitions"
        : `no labelling meets these hard constraints together: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}${found.conflictMinimal === false ? " (the time limit ended the search for a smaller set)" : ""}`,
    );
    this.conflict = conflict;
  }
}

/**
 * A sentence's time limit ended an n-best search before it found any labelling: nothing is
 * proven (unlike {@link InfeasibleSentenceError}), so it is a failure to run (exit 1), not
 * malformed input.
 */
export class TimeLimitReachedError extends Error {
  override readonly name = "TimeLimitReachedError";
  readonly code = "time-limit";
  constructor(timeLimitMs: unknown) {
    const limit = typeof timeLimitMs === "number" ? ` (${timeLimitMs / 1000} s)` : "";
    super(
      `the time limit${limit} ended the search before any labelling was found; raise --time-limit`,
    );
  }
}

/** Conflicting constraints named in the message (all of them are in `conflict`). */
const SHOWN_CONFLICT_NAMES = 10;

/** What one sentence is tagged under besides the tagger's own settings. */
export interface TagSentenceOptions {
  /**
   * Forced / partial decoding: the labels each position may take, over {@link Tagger.edge}'s
   * labels (core's `fixedLabelsRestriction` fixes some positions, leaves the rest free). A restriction the
   * scheme's transitions or the hard constraints cannot meet is an {@link InfeasibleSentenceError}.
   */
  readonly restriction?: LabelRestriction;
}

/** Where the time of tagging went, in milliseconds: the one clock every app prints. */
export interface TaggingTime {
  readonly sentences: number;
  readonly tokens: number;
  /** Feature extraction (the preset). */
  readonly featuresMs: number;
  /** Attributes → chain scores (the model). */
  readonly scoringMs: number;
  /** Chain scores → labels (the decoder, with its constraints and slaves). */
  readonly decodingMs: number;
}

/** A sentence's n-best list, best first, each entry with its label names. */
export interface TaggedNBest {
  readonly method: NBestMethod;
  readonly decodes: number;
  /** The sentence's time limit ended the search: the list may hold fewer than k entries. */
  readonly timedOut: boolean;
  readonly entries: readonly (NBestEntry & { readonly names: string[] })[];
}

/** One tagged sentence. */
export interface Tagged {
  /** Under the model's output scheme ({@link Tagger.edge}); `decoding.labels` are the model's ids. */
  readonly labels: string[];
  readonly decoding: Decoding;
  /** The constraints the sentence was decoded under (empty without). */
  readonly constraints: readonly LinearConstraint[];
  /** The chain scores it was decoded from, a restriction included ({@link Tagger.confidence}). */
  readonly scores: ChainScores;
}

/** One document tagged as a whole ({@link Tagger.tagGroup}). */
export interface TaggedGroup {
  /** Each sentence's labels, in order. */
  readonly labels: string[][];
  /** The decoding of the whole document (its labels the sentences' end to end). */
  readonly decoding: Decoding;
  /** The constraints the document was decoded under, over its positions end to end. */
  readonly constraints: readonly LinearConstraint[];
  /**
   * Each sentence as {@link Tagger.tag} gives it (its own labels, scores and model ids; the
   * document's constraints), for {@link Tagger.confidence} under the chain.
   */
  readonly sentences: readonly Tagged[];
}

/**
 * Checks that a registered decoder can use what it is given, before any file is read: constraints
 * or slaves it does not take are a usage error, and so is a constrained decoder given neither
 * (Soft-DD with nothing to enforce is Viterbi, more slowly). Returns every slave name it will
 * decode with (the definition's own `withSlaves` first).
 */
export function checkDecoderUse(
  registry: DecoderRegistry,
  decoder: string,
  given: { readonly constraints: boolean; readonly slaves: readonly string[] },
): string[] {
  const definition = registry.decoder(decoder);
  const takers = (what: "constraints" | "slaves") =>
    `choose one that does: ${registry
      .decoders()
      .filter((d) => d.accepts[what])
      .map((d) => d.name)
      .join(", ")}`;
  const slaves = [...(definition.withSlaves ?? []), ...given.slaves];
  for (const name of slaves) registry.slave(name);
  if (given.constraints && !definition.accepts.constraints) {
    throw new LagrangeError(
      "usage",
      `decoder ${decoder} does not take constraints; ${takers("constraints")}`,
    );
  }
  if (given.slaves.length > 0 && !definition.accepts.slaves) {
    throw new LagrangeError(
      "usage",
      `decoder ${decoder} does not take extra slaves; ${takers("slaves")}`,
    );
  }
  if (needsConstraints(definition) && !given.constraints && slaves.length === 0) {
    throw new LagrangeError(
      "usage",
      `decoder ${decoder} decodes under constraints: give it learned constraints (lagrange constraints learn) or a slave`,
    );
  }
  return slaves;
}

/**
 * A model, its scheme's mask, a decoder from the registry, learned constraints and plug-in slaves:
 * sentences in, labels out. The pipeline behind `lagrange tag`, the demo and the bench, so that each
 * of them decodes — and times — the same way.
 */
export class Tagger {
  readonly model: CrfModel;
  readonly decoder: Decoder;
  /** The scheme the model decodes under (its constraints' too). */
  readonly scheme: LabelScheme;
  /**
   * Between the model's labels and the ones users read and write (a model trained under an
   * internal scheme records the data's as its output scheme): every label name the tagger gives
   * out passes {@link #names}, and every restriction given in comes over `edge.labels`.
   */
  readonly edge: SchemeEdge;
  /** Null for a model that reads attribute lists only (imported from CRFsuite): see {@link tagAttributes}. */
  readonly #scorer: ChainScorer;
  readonly #constraintsFor:
    | ((instance: { n: number; L: number; tokens: readonly string[] }) => LinearConstraint[])
    | undefined;
  /** A document's constraints: sentence templates in each sentence, document templates over all. */
  readonly #documentConstraintsFor: (instance: TemplateInstance) => LinearConstraint[];
  readonly #slaves: readonly SlaveDefinition[];
  /**
   * The states the constraints are compiled over when the scheme gives a segment no one label
   * that marks it (IOB1, IOE1): sentences decode in it and their labels are lowered back.
   */
  readonly lattice: SegmentLattice | undefined;
  /** The names the decoder's labels have: the lattice's states, else the model's labels. */
  readonly #labels: readonly string[];
  readonly #options: DecodeOptions;
  /** A second-order model: exact second-order Viterbi gives its labels only. */
  readonly labelsOnly: boolean;
  /** How its n-best lists are found (its decoder's declared method). */
  readonly nbestMethod: NBestMethod;
  readonly #capabilities: ReturnType<typeof decoderCapabilities>;
  #time = { sentences: 0, tokens: 0, featuresMs: 0, scoringMs: 0, decodingMs: 0 };

  constructor(options: TaggerOptions) {
    const { model } = options;
    const registry = options.registry ?? chainDecoders();
    this.model = model;
    this.scheme = modelScheme(model);
    this.edge = schemeEdge(model);
    const decoder = options.decoder ?? DEFAULT_DECODERS["chain-crf"];
    this.labelsOnly = model.features.includes("second-order");
    if (this.labelsOnly) checkSecondOrderUse(options, registry);
    const slaves =
      typeof decoder === "string"
        ? checkDecoderUse(registry, decoder, {
            constraints: options.constraints !== undefined,
            slaves: options.slaves ?? [],
          })
        : (options.slaves ?? []);
    // A second-order model: its first-order scores, and a decoder that adds the trigrams.
    this.decoder = this.labelsOnly
      ? secondOrderDecoder(model)
      : typeof decoder === "string"
        ? registry.create(decoder)
        : decoder;
    this.#scorer = model.scorer(modelDecodingConstraints(model), {
      firstOrderPart: this.labelsOnly,
    });
    this.#constraintsFor =
      options.constraints === undefined ? undefined : constraintInstantiator(options.constraints);
    this.#documentConstraintsFor =
      options.constraints === undefined ? () => [] : documentInstantiator(options.constraints);
    this.#slaves = slaves.map((name) => registry.slave(name));
    const lattice =
      options.constraints === undefined ? undefined : constraintLattice(options.constraints);
    this.lattice = lattice?.expanded === true ? lattice : undefined;
    this.#labels = this.lattice?.states ?? model.labels.names();
    this.#options = options.decodeOptions ?? {};
    this.#capabilities = decoderCapabilities(registry, this.decoder.name);
    this.nbestMethod = nbestMethodFor(this.#capabilities);
  }

  /** One sentence (or `sentences` of them) of n tokens, scored from t0 to t1 and decoded from t1 to t2. */
  #count(n: number, t0: number, t1: number, t2: number, sentences = 1): void {
    const time = this.#time;
    time.scoringMs += t1 - t0;
    time.decodingMs += t2 - t1;
    time.sentences += sentences;
    time.tokens += n;
  }

  /** Time spent so far. */
  get time(): TaggingTime {
    return { ...this.#time };
  }

  /** The preset's attributes of a sentence (its feature columns). */
  attributes(sentence: Sentence): AttributeSequence {
    const started = performance.now();
    const attributes = sentenceAttributes(modelPreset(this.model), sentence);
    this.#time.featuresMs += performance.now() - started;
    return attributes;
  }

  /** Decodes precomputed attributes (a caller that extracted them once for several decoders). */
  tagAttributes(
    attributes: AttributeSequence,
    tokens: readonly string[],
    signal?: AbortSignal,
    options: TagSentenceOptions = {},
  ): Tagged {
    throwIfAborted(signal);
    const t0 = performance.now();
    const restriction =
      options.restriction === undefined
        ? undefined
        : this.edge.liftRestriction(options.restriction, tokens.length);
    const { problem, constraints, scores } = this.#problem(attributes, tokens, restriction);
    const t1 = performance.now();
    const decoding = this.#lowered(
      this.decoder.decode(
        problem,
        signal === undefined ? this.#options : { ...this.#options, signal },
      ),
    );
    const t2 = performance.now();
    if (decoding.status === "infeasible") throw new InfeasibleSentenceError(decoding);
    this.#count(scores.n, t0, t1, t2);
    const labels = this.#names(decoding.labels);
    if (options.restriction !== undefined) this.#meetsForced(options.restriction, labels);
    return {
      labels,
      decoding,
      constraints,
      scores,
    };
  }

  /**
   * Decodes a document at a time, its sentences' attributes and tokens in order: their chains end
   * to end under the constraints' sentence templates in each sentence and document templates over
   * the whole (see `decodeDocument`). A decoder without constraints gives each sentence its own
   * best labelling.
   */
  tagGroup(
    attributes: readonly AttributeSequence[],
    tokens: readonly (readonly string[])[],
    signal?: AbortSignal,
  ): TaggedGroup {
    throwIfAborted(signal);
    const t0 = performance.now();
    // Copied: the scorer reuses its buffers from one sentence to the next.
    const scores = attributes.map((a) => ownScores(this.#scorer.score(a)));
    const t1 = performance.now();
    const lattice = this.lattice;
    const found = decodeDocument(
      this.decoder,
      scores,
      tokens,
      {
        constraintsFor: this.#documentConstraintsFor,
        slavesFor: (instance) =>
          this.#slaves.flatMap((definition) =>
            [
              definition.create({
                n: instance.n,
                L: instance.L,
                labels: this.#labels,
                tokens: instance.tokens ?? [],
              }),
            ].flat(),
          ),
        ...(lattice === undefined ? {} : { lift: (s: ChainScores) => lattice.liftScores(s) }),
        lower: (decoding) => this.#lowered(decoding),
      },
      signal === undefined ? this.#options : { ...this.#options, signal },
    );
    const t2 = performance.now();
    if (found.decoding.status === "infeasible") throw new InfeasibleSentenceError(found.decoding);
    this.#count(found.decoding.labels.length, t0, t1, t2, scores.length);
    const labels = found.labels.map((ids) => this.#names(ids));
    return {
      labels,
      decoding: found.decoding,
      constraints: found.constraints,
      sentences: found.labels.map((ids, j) => ({
        labels: labels[j]!,
        decoding: { ...found.decoding, labels: ids },
        constraints: found.constraints,
        scores: scores[j]!,
      })),
    };
  }

  /**
   * Forced output labels the output honours. Under IOB1 or IOE1 output a forced `B-`/`E-` lifts to
   * internal labels only loosely (it also depends on the neighbour the chain decides), so the
   * output is checked rather than trusted: a forced label not met is an error, never ignored.
   */
  #meetsForced(restriction: LabelRestriction, labels: readonly string[]): void {
    const names = this.edge.labels;
    const J = names.length;
    for (let i = 0; i < labels.length; i++) {
      let any = false;
      for (let j = 0; j < J && !any; j++) any = restriction[i * J + j] === 1;
      if (!any) continue;
      const j = names.indexOf(labels[i]!);
      if (j >= 0 && restriction[i * J + j] === 1) continue;
      const allowed = names.filter((_, k) => restriction[i * J + k] === 1);
      throw new LagrangeError(
        "bad-input",
        `token ${i + 1}: the forced labels (${allowed.join(", ")}) cannot be met by a model trained under ${this.scheme} and read as ${this.edge.scheme}, given its neighbours as decoded (it came out ${labels[i]}); force the neighbouring tokens too`,
      );
    }
  }

  /** The one way label names leave the tagger: the model's ids, in the output scheme. */
  #names(ids: Int32Array): string[] {
    return this.edge.out(this.model.labels.decode(ids));
  }

  /** A decoding over the lattice's states with its labellings as the model's labels. */
  #lowered(decoding: Decoding): Decoding {
    const lattice = this.lattice;
    if (lattice === undefined) return decoding;
    const cs = decoding.constraintStats;
    return {
      ...decoding,
      labels: lattice.lower(decoding.labels),
      ...(cs === undefined
        ? {}
        : { constraintStats: { ...cs, firstLabels: lattice.lower(cs.firstLabels) } }),
    };
  }

  /**
   * A sentence's problem for its decoder (chain scores, constraints, slaves; lifted to the
   * lattice's states when there is one) and the model's own chain scores, a restriction included.
   */
  #problem(
    attributes: AttributeSequence,
    tokens: readonly string[],
    restriction?: LabelRestriction,
  ): { problem: DecodeProblem; constraints: LinearConstraint[]; scores: ChainScores } {
    const scored = this.#scorer.score(attributes);
    const scores = restriction === undefined ? scored : restrictScores(scored, restriction);
    const decoded = this.lattice?.liftScores(scores) ?? scores;
    const { n, L } = decoded;
    const constraints = this.#constraintsFor?.({ n, L, tokens }) ?? [];
    const instance = { n, L, labels: this.#labels, tokens };
    const slaves = this.#slaves.flatMap((definition) => [definition.create(instance)].flat());
    const problem: DecodeProblem = {
      scores: decoded,
      ...(constraints.length === 0 ? {} : { constraints }),
      ...(slaves.length === 0 ? {} : { slaves }),
    };
    return { problem, constraints, scores };
  }

  /**
   * Marginals and p(y|x) of a sentence this tagger tagged: the decoder's own marginals where it
   * has them (bcrf, mean-field), else the chain's, marked `chain-unconstrained` when the sentence
   * was decoded under constraints or slaves. Marginals and each token's confidence are of the
   * labels output ({@link edge}'s). Spans: each output span's probability under the chain, over
   * the model's own labels and scheme (an output scheme keeps the same spans).
   */
  confidence(tagged: Tagged, request: ConfidenceRequest): LabellingConfidence {
    if (this.labelsOnly) throw secondOrderOnly("--marginals and --probability");
    const constrained = tagged.constraints.length > 0 || this.#slaves.length > 0;
    const confidence = labellingConfidence(
      tagged.scores,
      tagged.decoding.labels,
      this.decoder,
      constrained,
      request,
      this.#options,
      request.marginals === true ? this.edge.marginals : undefined,
    );
    if (request.spans !== true) return confidence;
    return {
      ...confidence,
      spans: spanProbabilities(
        tagged.scores,
        tagged.decoding.labels,
        this.model.labels.names(),
        this.scheme,
      ),
      spansOf: constrained ? "chain-unconstrained" : "chain",
    };
  }

  /**
   * The k best labellings of a sentence's attributes under the tagger's decoder, constraints and
   * slaves (and a restriction, for forced decoding): see {@link nbestOf} for what each decoder
   * guarantees.
   */
  nbestAttributes(
    attributes: AttributeSequence,
    tokens: readonly string[],
    k: number,
    options: TagNBestOptions = {},
  ): TaggedNBest {
    throwIfAborted(options.signal);
    if (this.labelsOnly) throw secondOrderOnly("--nbest");
    const t0 = performance.now();
    const { problem } = this.#problem(attributes, tokens);
    const t1 = performance.now();
    const n = problem.scores.n;
    const restriction =
      options.restriction === undefined
        ? undefined
        : this.#liftRestriction(this.edge.liftRestriction(options.restriction, n), n);
    const found = nbestOf(this.decoder, problem, k, {
      ...(options.method === undefined ? {} : { method: options.method }),
      capabilities: this.#capabilities,
      ...(restriction === undefined ? {} : { restriction }),
      decodeOptions:
        options.signal === undefined ? this.#options : { ...this.#options, signal: options.signal },
    });
    const t2 = performance.now();
    if (found.entries.length === 0 && found.timedOut) {
      // Nothing is proven: the deadline came before the first feasible labelling.
      throw new TimeLimitReachedError(this.#options.timeLimitMs);
    }
    if (found.entries.length === 0) {
      throw new InfeasibleSentenceError({
        labels: new Int32Array(n),
        primal: Number.NEGATIVE_INFINITY,
        dual: Number.NEGATIVE_INFINITY,
        status: "infeasible",
        iterations: found.decodes,
        certified: false,
        gap: Number.POSITIVE_INFINITY,
      });
    }
    this.#count(n, t0, t1, t2);
    return {
      method: found.method,
      decodes: found.decodes,
      timedOut: found.timedOut,
      entries: found.entries.map((e) => {
        const labels = this.lattice?.lower(e.labels) ?? e.labels;
        const names = this.#names(labels);
        if (options.restriction !== undefined) this.#meetsForced(options.restriction, names);
        return { ...e, labels, names };
      }),
    };
  }

  /** A restriction over the model's labels as one over the lattice's states. */
  #liftRestriction(restriction: LabelRestriction, n: number): LabelRestriction {
    const lattice = this.lattice;
    if (lattice === undefined) return restriction;
    const { origin } = lattice;
    const L = this.model.numLabels;
    const S = origin.length;
    const lifted = new Uint8Array(n * S);
    for (let i = 0; i < n; i++) {
      for (let s = 0; s < S; s++) lifted[i * S + s] = restriction[i * L + origin[s]!]!;
    }
    return lifted;
  }
}

/** What a second-order model cannot do yet: the decoder's only output is its labelling. */
export function secondOrderOnly(what: string): LagrangeError {
  return new LagrangeError(
    "usage",
    `${what}: not for a second-order model (train --order 2), which tags with exact second-order Viterbi only (the library's CrfModel.marginals gives its marginals)`,
  );
}

/** A second-order model decodes with its own exact Viterbi: no other decoder, constraint or slave. */
function checkSecondOrderUse(options: TaggerOptions, registry: DecoderRegistry): void {
  const { decoder, constraints, slaves } = options;
  const named = typeof decoder === "string" ? decoder : decoder?.name;
  const refused =
    named !== undefined && decoderCapabilities(registry, named)?.exactChain !== true
      ? `--decoder ${named}`
      : constraints !== undefined
        ? "learned constraints"
        : (slaves?.length ?? 0) > 0
          ? "extra slaves"
          : null;
  if (refused !== null) {
    throw new LagrangeError(
      "usage",
      `${refused}: a second-order model (train --order 2) decodes with exact second-order Viterbi only (--decoder viterbi, the default)`,
    );
  }
}

export interface TagNBestOptions extends TagSentenceOptions {
  /** Default: the decoder's ({@link Tagger.nbestMethod}). */
  readonly method?: NBestMethod;
  readonly signal?: AbortSignal;
}
