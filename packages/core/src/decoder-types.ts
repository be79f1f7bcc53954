/**
 * The decoder contract: problems, options, decoders and the definitions a registry holds (the
 * registry itself is in decoder.ts).
 */
import type { ChainScores } from "./chain.js";
import type { LinearConstraint } from "./constraints.js";
import type { DecoderOptionSpec } from "./decoder-options.js";
import type { Decoding } from "./decoding.js";
import type { SlaveBinding } from "./dual-decomposition/bindings.js";
import type { PatternFactor } from "./factor-graph.js";
import type { Slave, SolveOptions } from "./solver.js";

/** One problem for every decoder: a model's chain scores plus whatever global structure applies. */
export interface DecodeProblem {
  /** From a model (CRF, Bregman CRF, …) for one sentence. */
  readonly scores: ChainScores;
  /** Hard (no penalty) and soft (penalty) rules over the indicators `i*L + t`. */
  readonly constraints?: readonly LinearConstraint[];
  /** Extra slaves beside the chain: a min-cut, a user's own oracle, … */
  readonly slaves?: readonly SlaveBinding[];
  /**
   * Higher-order pattern factors scored on top of the chain (qian-liu2014's sparse form): their
   * variables are positions 0..n−1, each with the problem's L labels — a general CRF's skip-chain
   * and phrase-consistency potentials. The objective is chain score + Σ factor scores.
   */
  readonly patterns?: readonly PatternFactor[];
}

export interface DecodeOptions extends SolveOptions {
  /** Warm start for the constraint multipliers λ (decoders that have them). */
  readonly initialMultipliers?: ArrayLike<number>;
}

/** Any inference strategy over a {@link DecodeProblem}: Viterbi, soft-DD, ILP, 2-slave DD, Bcrf, … */
export interface Decoder {
  readonly name: string;
  decode(problem: DecodeProblem, options?: DecodeOptions): Decoding;
  /**
   * A decoder with a distribution of its own (Bcrf, mean field): the tag marginals it decodes
   * from, n·L with label t of position i at i·L + t. Absent where the decoder defines none.
   */
  marginals?(problem: DecodeProblem, options?: DecodeOptions): Float64Array;
}

/**
 * The exact MAP oracle of a chain as a slave (it validates the scores). A factory may reuse its
 * buffers between calls: the slave it returned before is then invalid, so call it once per problem.
 */
export type ChainSlaveFactory = (scores: ChainScores) => Slave;

/** What a decoder is built with. */
export interface DecoderContext {
  /**
   * A fresh chain oracle for one decoder (each decoder gets its own, so reused buffers are never
   * shared): core's reference `chainSlave` by default; chain-crf's `crfChainSlaves` is faster.
   */
  readonly chainSlaves: () => ChainSlaveFactory;
}

/** A named decoder that apps can list and build: what `--decoder <name>` picks. */
export interface DecoderDefinition {
  readonly name: string;
  /** One line for `--help` and listings. */
  readonly description: string;
  /**
   * Whether problems may carry constraints / extra slaves / higher-order patterns (else decoding
   * them is an error; `patterns` absent = false).
   */
  readonly accepts: {
    readonly constraints: boolean;
    readonly slaves: boolean;
    readonly patterns?: boolean;
  };
  /**
   * What apps may ask of it beyond decoding, declared so that they never test its name. Absent
   * fields: constraints needed where accepted, n-best by partition, `certified` read as proof.
   */
  readonly capabilities?: {
    /** Decoding is pointless without constraints or slaves (default `accepts.constraints`). */
    readonly needsConstraints?: boolean;
    /** How its k best are found: `list-viterbi` (the chain alone), `no-good-cuts` (an exact ILP). */
    readonly nbest?: "list-viterbi" | "no-good-cuts" | "partition";
    /**
     * What `certified` proves: the optimum of its primal, a dual bound on it, nothing, or the
     * optimum of another objective than the primal it reports (so a list cannot rank by it).
     */
    readonly certificate?: "optimum" | "dual-bound" | "none" | "other-objective";
    /** It decodes a bare chain exactly and nothing more (a general CRF's chain-only decoder). */
    readonly exactChain?: boolean;
  };
  /**
   * Registered slaves (by name) this decoder always decodes with: apps add them to every
   * problem, so `--decoder my-dd` alone brings its plug-in's slave along.
   */
  readonly withSlaves?: readonly string[];
  /**
   * The decode options it reads (each sets one field of the options `decode` is given): apps
   * build their flags, checks and help from them (`resolveDecoderOptions`). Absent: none.
   */
  readonly options?: readonly DecoderOptionSpec[];
  /**
   * Asynchronous set-up a decoder needs once per process before `create` (HiGHS compiles its
   * WebAssembly module); apps await `registry.prepare(name)`, which calls it.
   */
  prepare?(): Promise<void>;
  create(context: DecoderContext): Decoder;
}

/** The sentence a plug-in slave is built for. */
export interface SentenceInstance {
  readonly n: number;
  readonly L: number;
  /** The model's label names, by id. */
  readonly labels: readonly string[];
  readonly tokens: readonly string[];
}

/** A named slave that apps add to every problem: what `--slave <name>` picks. */
export interface SlaveDefinition {
  readonly name: string;
  readonly description: string;
  create(instance: SentenceInstance): SlaveBinding | readonly SlaveBinding[];
}
