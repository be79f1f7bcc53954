import type { Slave } from "../solver.js";

/** A slave and the global positions it labels: its local position j is global `positions[j]`. */
export interface SlaveBinding {
  readonly slave: Slave;
  /** Distinct global positions, one per local position; absent = identity (the slave covers 0..n−1). */
  readonly positions?: Int32Array;
}
