import {
  constraintPenalty,
  type DecoderDefinition,
  dualDecompositionDecoder,
  type LinearConstraint,
  type Slave,
} from "@lagrange/core";
import {
  type ChainSlaveFactory,
  type ConstraintMode,
  DUAL_DECOMPOSITION_OPTIONS,
  DualDecomposition,
  type DualDecompositionDecoder,
  type DualDecompositionOptions,
  type DualDecompositionStep,
  type StepRule,
} from "@lagrange/core/dual-decomposition";

/**
 * anzaroot2014's decoders are policies over core's one dual-decomposition master: they choose the
 * step rule, when to give up on a frozen gap, and whether penalties count.
 */
export interface SoftDDOptions {
  /**
   * Default `{ kind: "shrink-on-dual-increase", initial: 1 }`: Rush & Collins' schedule (the step
   * shrinks each time the dual rises), starting at one score unit per unit of violation.
   */
  readonly stepRule?: StepRule;
  /** Default 200. */
  readonly maxIterations?: number;
  /**
   * The master's step: `auto` (default, as core declares it: `subgradient`, Rush & Collins'
   * schedule of `stepRule`, then `ad3` where that stalls uncertified), `subgradient` or `ad3`
   * (augmented Lagrangian; `stepRule` is then unused). A decode call's own `step` overrides it.
   */
  readonly step?: DualDecompositionOptions["step"];
  /** AD3's initial quadratic penalty η (core's default 1), adapted during the run. */
  readonly eta?: number;
  /** With the AD3 step: branch and bound until the gap closes (exact MAP). Default false. */
  readonly exact?: boolean;
  /** Certificate tolerance on the relative duality gap (core's meaning; default 1e-6). */
  readonly tolerance?: number;
  /** Slack under which a·y − b counts as zero (default 1e-9): coefficients need not be integers. */
  readonly feasibilityTolerance?: number;
  /**
   * Stop with status `converged` (no certificate) when neither bound has moved by a thousandth of
   * the gap for this many iterations (default 10; 0 disables). On real constraint sets the runs
   * that do not certify are integrality gaps that stay frozen: running on to the cap only wastes
   * slave calls. On UMass citations 10 and 30 give the same labels and certificates, and 10 saves
   * 13 % of the slave calls (1.60 instead of 1.83 per citation).
   */
  readonly stallIterations?: number;
  /** The chain's MAP oracle (default core's reference `chainSlave`; chain-crf's is faster). */
  readonly chainSlave?: ChainSlaveFactory;
}

const STEP_OPTION_DEFAULT = DUAL_DECOMPOSITION_OPTIONS.find((o) => o.key === "step")!
  .default as DualDecompositionStep;

export const SOFT_DD_STEP_RULE: StepRule = { kind: "shrink-on-dual-increase", initial: 1 };

/** Algorithm 2 (Soft-DD): a constraint with a penalty c is soft (λ ∈ [0, c]), one without is hard. */
export function softDDPolicy(options: SoftDDOptions = {}): DualDecompositionOptions {
  return {
    stepRule: options.stepRule ?? SOFT_DD_STEP_RULE,
    maxIterations: options.maxIterations ?? 200,
    stallIterations: options.stallIterations ?? 10,
    constraintMode: "as-given",
    ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
    step: options.step ?? STEP_OPTION_DEFAULT,
    ...(options.eta === undefined ? {} : { eta: options.eta }),
    ...(options.exact === undefined ? {} : { exact: options.exact }),
    ...(options.feasibilityTolerance === undefined
      ? {}
      : { feasibilityTolerance: options.feasibilityTolerance }),
  };
}

/**
 * Algorithm 1 (DD): every constraint hard (λ ≥ 0), penalties ignored — the paper's comparison.
 * Runs that have not yet found a labelling meeting every constraint need longer than Soft-DD's
 * frozen gaps: the stall rule waits 30 iterations (on UMass, 10 left 9 of 327 citations without a
 * feasible labelling and cost 2 points of field F1; 30 leaves 3).
 */
export function hardDDPolicy(options: SoftDDOptions = {}): DualDecompositionOptions {
  return {
    ...softDDPolicy(options),
    stallIterations: options.stallIterations ?? 30,
    constraintMode: "hard",
  };
}

/** Soft-DD as a decoder over chain scores, constraints and any extra slaves. */
export function softDD(options: SoftDDOptions = {}): DualDecompositionDecoder {
  return dualDecompositionDecoder("soft-dd", softDDPolicy(options), options.chainSlave);
}

/** Hard-constraint DD as a decoder. */
export function hardDD(options: SoftDDOptions = {}): DualDecompositionDecoder {
  return dualDecompositionDecoder("hard-dd", hardDDPolicy(options), options.chainSlave);
}

/** The master under Soft-DD's policy, for callers that bring their own slave (penalty learning). */
export function softDDMaster(options: SoftDDOptions = {}): DualDecomposition {
  // Learning reads each run's labelling, not its certificate: AD3 after a stall costs time and
  // moves the learned penalties (measured on UMass with it on), for no certificate it uses.
  return new DualDecomposition(
    softDDPolicy({ ...options, step: options.step ?? "subgradient" }),
    "soft-dd",
  );
}

/** A registry entry for a decoder built from Soft-DD options and a chain oracle. */
function definition(
  name: string,
  description: string,
  make: (options: SoftDDOptions) => DualDecompositionDecoder,
): DecoderDefinition {
  return {
    name,
    description,
    accepts: { constraints: true, slaves: true },
    capabilities: { certificate: "dual-bound" },
    // The master reads them from the decode options (over the policy's 200, core's 1e-6, the
    // auto step, η = 1 and no branch and bound).
    options: DUAL_DECOMPOSITION_OPTIONS,
    create: (context) => make({ chainSlave: context.chainSlaves() }),
  };
}

export const softDDDefinition = definition(
  "soft-dd",
  "dual decomposition with learned soft penalties (anzaroot2014 Alg. 2); hard constraints stay hard",
  softDD,
);

export const hardDDDefinition = definition(
  "hard-dd",
  "dual decomposition with every constraint hard, penalties ignored (anzaroot2014 Alg. 1)",
  hardDD,
);

/** The objective Soft-DD maximises: s(y) − Σ c·max(0, a·y − b); −∞ if a hard one is violated. */
export function constrainedObjective(
  slave: Slave,
  constraints: readonly LinearConstraint[],
  labels: ArrayLike<number>,
  options: { readonly mode?: ConstraintMode; readonly feasibilityTolerance?: number } = {},
): number {
  const base = slave.score(labels);
  if (base === Number.NEGATIVE_INFINITY) return base;
  const counted =
    options.mode === "hard" ? constraints.map(({ penalty: _, ...hard }) => hard) : constraints;
  return base - constraintPenalty(counted, labels, slave.L, options.feasibilityTolerance);
}
