/** The fields of a Bcrf workspace a half-step kernel reads and writes (see `BcrfWorkspace`). */
export interface StepperWorkspace {
  readonly L: number;
  readonly sharedKernel: boolean;
  readonly kernel: Float64Array;
  readonly rowScale: Float64Array;
  readonly colScale: Float64Array;
  readonly projected: Uint8Array;
}

/**
 * One half-step: projects every cluster of the parity whose first (0-based) position is `first`
 * (1 or 2) on a chain of n positions. Returns the largest violation measured before the
 * projections, −1 when some cluster's blocks had never been projected, NaN when a cluster
 * underflowed. The clusters of one half-step touch disjoint blocks, so they may run in any order
 * or on several threads (see the parallel kernel).
 */
export interface HalfStepper<W extends StepperWorkspace = StepperWorkspace> {
  /** Before the first half-step of a sequence (after the factors are initialised). */
  begin?(ws: W, n: number): void;
  step(ws: W, first: number, n: number): number;
  /** After the last half-step: the factors must be back in `ws`. */
  end?(ws: W, n: number): void;
}
