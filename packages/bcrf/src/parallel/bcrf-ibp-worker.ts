/**
 * A parallel IBP worker: waits on the control block, projects its share of each half-step's
 * clusters on the shared factors, publishes the generation it finished.
 */
import { workerData } from "node:worker_threads";
import { BcrfWorkspace, clusterCount, projectClusterRange } from "../inference/bcrf-workspace.js";
import { COMMAND, CONTROL, type ParallelSetup, shareStart, WORKER_FAILED } from "./protocol.js";

const setup = workerData as ParallelSetup;
const control = new Int32Array(setup.control);
const results = new Float64Array(setup.results);
const ws = new BcrfWorkspace();
ws.left = new Float64Array(setup.maxLabels);
ws.right = new Float64Array(setup.maxLabels);
ws.kernel = new Float64Array(setup.kernel);
ws.rowScale = new Float64Array(setup.rowScale);
ws.colScale = new Float64Array(setup.colScale);
ws.projected = new Uint8Array(setup.projected);

// Generations start at 0: one bumped before this line still wakes the first wait at once.
let seen = 0;
for (;;) {
  Atomics.wait(control, CONTROL.generation, seen);
  seen = Atomics.load(control, CONTROL.generation);
  if (Atomics.load(control, CONTROL.command) === COMMAND.exit) break;
  const first = control[CONTROL.first]!;
  const n = control[CONTROL.n]!;
  ws.L = control[CONTROL.L]!;
  ws.sharedKernel = control[CONTROL.shared] === 1;
  const count = clusterCount(first, n);
  try {
    const from = shareStart(count, setup.index, setup.threads);
    const to = shareStart(count, setup.index + 1, setup.threads);
    results[setup.index] = projectClusterRange(ws, first, from, to);
  } catch (error) {
    // The main thread is blocked waiting for this generation: answer it, then report.
    results[setup.index] = WORKER_FAILED;
    Atomics.store(control, CONTROL.done + setup.index, seen);
    Atomics.notify(control, CONTROL.done + setup.index);
    throw error;
  }
  Atomics.store(control, CONTROL.done + setup.index, seen);
  Atomics.notify(control, CONTROL.done + setup.index);
}
