import {
  buildMaxflowGraph,
  MaxflowGraph,
  type MaxflowInstance,
  type MaxflowUpdateRound,
  terminalCapacities,
} from "@lagrange/mincut";
import { median } from "@lagrange/recipes";
import type { PhaseTimes, UpdateTimes } from "./maxflow-results.js";

export type MaxflowKernel = MaxflowGraph["kernel"];

/** What one performance.now() costs, in nanoseconds. */
export function clockCost(): number {
  const k = 200_000;
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < k; i++) sink += performance.now();
  const t1 = performance.now();
  return sink === 0 ? 0 : ((t1 - t0) * 1e6) / k;
}

/** Repetitions so that one sample lasts ≥ minSampleMs, from a warmed-up trial. */
function repetitions(trial: () => void, minSampleMs: number): number {
  // Warm-up: a few untimed solves, so that samples time optimised code (C++ needs none).
  const warmUntil = performance.now() + Math.max(20, 2 * minSampleMs);
  let warm = 0;
  do {
    trial();
    warm++;
  } while (warm < 3 || (warm < 1000 && performance.now() < warmUntil));
  const t0 = performance.now();
  trial();
  const ms = performance.now() - t0;
  return Math.max(1, Math.ceil(minSampleMs / Math.max(ms, 1e-6)));
}

export function medianPhases(samples: readonly PhaseTimes[]): PhaseTimes {
  return {
    buildMs: median(samples.map((x) => x.buildMs)),
    maxflowMs: median(samples.map((x) => x.maxflowMs)),
    totalMs: median(samples.map((x) => x.totalMs)),
  };
}

export function medianUpdates(samples: readonly UpdateTimes[]): UpdateTimes {
  return {
    freshMs: median(samples.map((x) => x.freshMs)),
    reuseMs: median(samples.map((x) => x.reuseMs)),
  };
}

/**
 * One sample per call: build, maxflow() and total, each from its own loop as the C++ driver
 * does, repeated to last ≥ minSampleMs. Building reuses one graph (reset() keeps its memory);
 * C++ allocates and deletes its Graph per build.
 */
export function phaseSampler(
  instance: MaxflowInstance,
  graph: MaxflowGraph,
  minSampleMs: number,
): (() => PhaseTimes) & { repetitions: number } {
  const reps = repetitions(() => buildMaxflowGraph(instance, graph).maxflow(), minSampleMs);
  const sample = () => {
    let t0 = performance.now();
    for (let r = 0; r < reps; r++) buildMaxflowGraph(instance, graph);
    const buildMs = (performance.now() - t0) / reps;

    let inside = 0;
    for (let r = 0; r < reps; r++) {
      buildMaxflowGraph(instance, graph);
      const a = performance.now();
      graph.maxflow();
      inside += performance.now() - a;
    }
    const maxflowMs = inside / reps;

    t0 = performance.now();
    for (let r = 0; r < reps; r++) buildMaxflowGraph(instance, graph).maxflow();
    return { buildMs, maxflowMs, totalMs: (performance.now() - t0) / reps };
  };
  return Object.assign(sample, { repetitions: reps });
}

/**
 * The update rounds, one sample per call: a fresh build + maxflow per round, and
 * setTerminalWeights + maxflow(true) on the previous round's graph; both checked once against
 * `flows` (`exact`).
 */
export function updateSampler(
  instance: MaxflowInstance,
  rounds: readonly MaxflowUpdateRound[],
  flows: readonly number[],
  minSampleMs: number,
  kernel: MaxflowKernel,
): { exact: boolean; sample: () => UpdateTimes } {
  // Each round's instance, from arrays (terminal lines for the nodes with capacity).
  const terminals = terminalCapacities(instance);
  const perRound: MaxflowInstance[] = rounds.map((round) => {
    for (let k = 0; k < round.node.length; k++) {
      terminals.source[round.node[k]!] = round.capSource[k]!;
      terminals.sink[round.node[k]!] = round.capSink[k]!;
    }
    const nodes: number[] = [];
    for (let i = 0; i < instance.n; i++) {
      if (terminals.source[i] !== 0 || terminals.sink[i] !== 0) nodes.push(i);
    }
    return {
      ...instance,
      terminalNode: Int32Array.from(nodes),
      terminalSource: Float64Array.from(nodes, (i) => terminals.source[i]!),
      terminalSink: Float64Array.from(nodes, (i) => terminals.sink[i]!),
    };
  });
  const fresh = new MaxflowGraph({ nodes: instance.n, edges: instance.m, kernel });
  const reused = new MaxflowGraph({ nodes: instance.n, edges: instance.m, kernel });
  let exact = true;
  const freshPass = (check: boolean) => {
    for (let r = 0; r < perRound.length; r++) {
      const f = buildMaxflowGraph(perRound[r]!, fresh).maxflow();
      if (check && f !== flows[r]) exact = false;
    }
  };
  // One pass: the base graph is built and solved untimed; returns the rounds' time.
  const reusePass = (check: boolean) => {
    buildMaxflowGraph(instance, reused).maxflow();
    const t0 = performance.now();
    for (let r = 0; r < rounds.length; r++) {
      const round = rounds[r]!;
      for (let k = 0; k < round.node.length; k++) {
        reused.setTerminalWeights(round.node[k]!, round.capSource[k]!, round.capSink[k]!);
      }
      const f = reused.maxflow(true);
      if (check && f !== flows[r]) exact = false;
    }
    return performance.now() - t0;
  };
  freshPass(true);
  reusePass(true);
  const freshReps = repetitions(() => freshPass(false), minSampleMs);
  repetitions(() => reusePass(false), 0); // warm-up only
  const reuseReps = Math.max(1, Math.ceil(minSampleMs / Math.max(reusePass(false), 1e-6)));
  const R = rounds.length;
  const sample = () => {
    const t0 = performance.now();
    for (let r = 0; r < freshReps; r++) freshPass(false);
    const freshMs = (performance.now() - t0) / freshReps / R;
    let ms = 0;
    for (let r = 0; r < reuseReps; r++) ms += reusePass(false);
    return { freshMs, reuseMs: ms / reuseReps / R };
  };
  return {
    get exact() {
      return exact;
    },
    sample,
  };
}
