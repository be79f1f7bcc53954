import { ProblemValidationError } from "@lagrange/core";
import { instantiateKernel, type KernelMemory } from "@lagrange/core/wasm";
import { maxflowKernel } from "./kernel-js.js";
import { maxflowKernelModule } from "./kernel-wasm.js";
import { ARC_BYTES, H, HEADER_BYTES, N, NODE_BYTES, NONE, R, TERM_BYTES } from "./layout.js";

/**
 * Which side of the cut a node lies on, as {@link MaxflowGraph.whatSegment} reports it
 * (Kolmogorov's `SOURCE` / `SINK`).
 */
export const Segment = { Source: 0, Sink: 1 } as const;
export type Segment = (typeof Segment)[keyof typeof Segment];

/** Which of the two canonical minimum cuts {@link MaxflowGraph.minCut} returns. */
export type CutSide = "smallest" | "largest";

/**
 * Which implementation of the algorithm runs `maxflow()`: the WebAssembly module (the default
 * where WebAssembly exists) or the same algorithm in TypeScript. Both leave identical memory.
 */
export type MaxflowKernel = "wasm" | "js";

export interface MaxflowGraphOptions {
  /** Room for this many nodes up front (the graph grows as needed). */
  readonly nodes?: number;
  /** Room for this many edges (`addEdge` calls) up front. */
  readonly edges?: number;
  /** The kernel (default `"wasm"` when WebAssembly is available, else `"js"`). */
  readonly kernel?: MaxflowKernel;
}

const MIN_NODES = 16;
const MIN_EDGES = 16;
/** Addresses are signed 32-bit byte offsets: the whole layout stays below 2 GiB. */
const MAX_NODES = 1 << 24;
const MAX_EDGES = 1 << 24;
/** Bulk calls of at least this many entries go through the WebAssembly builders. */
const BULK = 64;
const PAGE = 65536;
/** Node records start right after the header; their addresses never move. */
const NODE_BASE = HEADER_BYTES;

/**
 * Whether u → v (capacity `cap`, reverse `revCap`) is an edge of an n-node graph: two distinct
 * integer nodes in range, capacities finite and ≥ 0. Small enough to inline into the fast paths.
 */
function isValidEdge(u: number, v: number, n: number, cap: number, revCap: number): boolean {
  return (
    u >= 0 &&
    v >= 0 &&
    u < n &&
    v < n &&
    (u | 0) === u &&
    (v | 0) === v &&
    u !== v &&
    cap >= 0 &&
    revCap >= 0 &&
    cap < Number.POSITIVE_INFINITY &&
    revCap < Number.POSITIVE_INFINITY
  );
}

/**
 * Writes the arc pair at byte address A (u → v with `cap`, then v → u with `revCap`) and puts each
 * arc at the head of its tail node's list: the one way edges are linked outside WebAssembly.
 */
function linkArcPair(
  I32: Int32Array,
  F64: Float64Array,
  A: number,
  u: number,
  v: number,
  cap: number,
  revCap: number,
): void {
  const U = NODE_BASE + (u << 5);
  const V = NODE_BASE + (v << 5);
  F64[A >> 3] = cap;
  F64[(A >> 3) + 2] = revCap;
  I32[(A >> 2) | 2] = V;
  I32[(A >> 2) | 3] = I32[(U >> 2) | 2]!;
  I32[(U >> 2) | 2] = A;
  I32[(A >> 2) + 6] = U;
  I32[(A >> 2) + 7] = I32[(V >> 2) | 2]!;
  I32[(V >> 2) | 2] = A + ARC_BYTES;
}

/**
 * A Boykov–Kolmogorov max-flow graph on flat typed arrays, with search-tree reuse between solves.
 *
 * The algorithm and its API follow Kolmogorov's MAXFLOW v3 (the `Graph` class): nodes are added
 * with {@link addNodes}, directed capacities with {@link addEdge}`(u, v, cap, revCap)`, terminal
 * capacities with {@link addTerminalWeights} (`add_tweights`: repeated calls add up), then
 * {@link maxflow} solves and {@link whatSegment} / {@link minCut} read the cut. Between solves,
 * terminal capacities may change ({@link addTerminalWeights}, {@link setTerminalWeights}) and
 * edges may be added; the next `maxflow(true)` then starts from the previous search trees and
 * flow (Kohli and Torr's dynamic graph cuts, Kolmogorov's `reuse_trees`), which is much cheaper
 * when few capacities moved. The mutators mark the nodes they touch; {@link markNode} is there for
 * callers that want to mark more, as with the C++ library.
 *
 * Capacities are doubles: integers and dyadic fractions (multiples of 1/64, …) are exact as long
 * as every partial sum is representable, which holds when the sum of all capacities is below
 * 2^53 (for fractions, below 2^53 units).
 *
 * Storage (`layout.ts`): one record per node (32 bytes) and per arc (16 bytes) in one buffer, read
 * through `Int32Array` / `Float64Array` / `Uint8Array` views, with byte addresses as pointers.
 * Each node's outgoing arcs form a singly linked list, newest first, as in the C++ library, so
 * the two visit arcs in the same order, build the same search trees and end with the same
 * residual capacities. The buffer is a WebAssembly memory run by the kernel of `kernel-wasm.ts`
 * (or an `ArrayBuffer` for the TypeScript kernel); it grows by doubling, and a solve allocates
 * nothing.
 */
export class MaxflowGraph {
  /** The kernel this graph runs. */
  readonly kernel: MaxflowKernel;
  private readonly memory: KernelMemory | null;
  private readonly run: (() => void) | null;
  private readonly linkEdges: (() => void) | null;
  private readonly addTerminals: (() => void) | null;
  private I32 = new Int32Array(0);
  private F64 = new Float64Array(0);
  private U8 = new Uint8Array(0);

  private nodeCount_ = 0;
  private nodeCapacity = 0;
  private edgeCount_ = 0;
  private edgeCapacity = 0;
  /** Byte address of the terminal totals (16 bytes per node: source, sink). */
  private termBase = 0;
  /** Byte address of the first arc (a multiple of 32). */
  private arcBase = 0;
  private ringBase = 0;
  private stackBase = 0;
  private changedBase = 0;
  /** Staging for bulk building: `chunk` entries of i32, i32, f64, f64. */
  private stageBase = 0;
  private chunk = 0;
  private changedCount = 0;
  private changedValid = false;

  private flow_ = 0;
  private solves = 0;
  private time = 0;
  /** The list of marked nodes (addresses; Kolmogorov's `queue_first[1]` between solves). */
  private markedFirst = -1;
  private markedLast = -1;

  /**
   * @param options room to allocate up front (`nodes`, `edges`; hints, the graph grows as
   *   needed) and the kernel
   */
  constructor(options: MaxflowGraphOptions = {}) {
    const module = options.kernel === "js" ? null : maxflowKernelModule();
    if (options.kernel === "wasm" && module === null) {
      throw new ProblemValidationError("kernel", "WebAssembly is not available here");
    }
    const nodes = clampCount(options.nodes, MIN_NODES, MAX_NODES);
    const edges = clampCount(options.edges, MIN_EDGES, MAX_EDGES);
    let memory: KernelMemory | null = null;
    let exports: Record<string, unknown> | null = null;
    if (module !== null) {
      try {
        ({ memory, exports } = instantiateKernel<Record<string, unknown>>(
          module,
          Math.ceil(layoutOf(nodes, edges).bytes / PAGE),
          32768,
        ));
      } catch (error) {
        // Out of address space for another memory: the TypeScript kernel needs none.
        if (options.kernel === "wasm") throw error;
        memory = null;
        exports = null;
      }
    }
    this.kernel = exports === null ? "js" : "wasm";
    this.memory = memory;
    this.run = exports === null ? null : (exports.maxflow as () => void);
    this.linkEdges = exports === null ? null : (exports.addEdges as () => void);
    this.addTerminals = exports === null ? null : (exports.addTerminals as () => void);
    this.resize(nodes, edges);
  }

  /** Number of nodes. */
  get nodeCount(): number {
    return this.nodeCount_;
  }

  /** Number of edges (`addEdge` calls); the graph holds twice as many arcs. */
  get edgeCount(): number {
    return this.edgeCount_;
  }

  /**
   * The flow value of the last {@link maxflow}; terminal changes since then move it by what they
   * add to both sides of every cut.
   */
  get flow(): number {
    return this.flow_;
  }

  /** Removes every node and edge, keeping the allocated memory (to rebuild a graph per solve). */
  reset(): void {
    this.nodeCount_ = 0;
    this.edgeCount_ = 0;
    this.flow_ = 0;
    this.solves = 0;
    this.markedFirst = -1;
    this.markedLast = -1;
    this.changedCount = 0;
    this.changedValid = false;
  }

  /** Adds `count` nodes with no edges and no terminal capacity; returns the id of the first. */
  addNodes(count = 1): number {
    if (!Number.isInteger(count) || count < 0) {
      throw new ProblemValidationError("count", `expected an integer ≥ 0, got ${count}`);
    }
    const start = this.nodeCount_;
    const end = start + count;
    if (end > MAX_NODES) {
      throw new ProblemValidationError("count", `a graph holds at most ${MAX_NODES} nodes`);
    }
    if (end > this.nodeCapacity) this.resize(end, this.edgeCapacity);
    if (count > 0) {
      // One record, then copies of it doubling in length (memmove speed).
      const I32 = this.I32;
      const first = NODE_BASE + start * NODE_BYTES;
      const total = count * NODE_BYTES;
      I32.fill(0, first >> 2, (first + NODE_BYTES) >> 2);
      I32[(first + N.FIRST) >> 2] = -1;
      I32[(first + N.PARENT) >> 2] = NONE;
      I32[(first + N.NEXT) >> 2] = -1;
      const U8 = this.U8;
      for (let done = NODE_BYTES; done < total; done *= 2) {
        U8.copyWithin(first + done, first, first + Math.min(done, total - done));
      }
    }
    this.F64.fill(0, (this.termBase >> 3) + 2 * start, (this.termBase >> 3) + 2 * end);
    this.nodeCount_ = end;
    return start;
  }

  /** Adds one node; returns its id. */
  addNode(): number {
    return this.addNodes(1);
  }

  /**
   * Adds the arc u→v with capacity `cap` and the arc v→u with capacity `revCap` (Kolmogorov's
   * `add_edge`). Parallel and antiparallel edges simply add up. Returns the edge's index, for
   * {@link edgeResidual}. After a solve, both ends are marked for the next `maxflow(true)`.
   */
  addEdge(u: number, v: number, cap: number, revCap: number): number {
    const e = this.edgeCount_;
    // One test covers the common case; anything unusual (bad input, growth, marking after a
    // solve) takes the slow path, which keeps this method small enough to be inlined.
    if (
      !(
        isValidEdge(u, v, this.nodeCount_, cap, revCap) &&
        e < this.edgeCapacity &&
        this.solves === 0
      )
    ) {
      return this.addEdgeSlow(u, v, cap, revCap);
    }
    linkArcPair(this.I32, this.F64, this.arcBase + (e << 5), u, v, cap, revCap);
    this.edgeCount_ = e + 1;
    return e;
  }

  private addEdgeSlow(u: number, v: number, cap: number, revCap: number): number {
    const n = this.nodeCount_;
    if (!(u >= 0 && u < n && (u | 0) === u)) this.badNode("u", u);
    if (!(v >= 0 && v < n && (v | 0) === v)) this.badNode("v", v);
    if (u === v) throw new ProblemValidationError("v", `an edge needs two nodes, got ${u} → ${v}`);
    if (!(cap >= 0 && cap < Number.POSITIVE_INFINITY)) this.badCapacity("cap", cap);
    if (!(revCap >= 0 && revCap < Number.POSITIVE_INFINITY)) this.badCapacity("revCap", revCap);
    const e = this.edgeCount_;
    if (e >= this.edgeCapacity) {
      if (e >= MAX_EDGES) {
        throw new ProblemValidationError("u", `a graph holds at most ${MAX_EDGES} edges`);
      }
      this.resize(this.nodeCapacity, e + 1);
    }
    const solves = this.solves;
    this.solves = 0;
    this.addEdge(u, v, cap, revCap);
    this.solves = solves;
    if (solves > 0) {
      this.markNode(u);
      this.markNode(v);
    }
    return e;
  }

  /**
   * {@link addEdge} for many edges at once: edge k is `from[k] → to[k]` with capacity `cap[k]`
   * and reverse capacity `revCap[k]`. All or nothing: a bad edge (the error names its index)
   * leaves the graph as it was. Much faster than a loop of `addEdge` (with the WebAssembly
   * kernel and `Int32Array` ends, the linking runs in WebAssembly). Returns the index of the
   * first added edge.
   */
  addEdges(
    from: ArrayLike<number>,
    to: ArrayLike<number>,
    cap: ArrayLike<number>,
    revCap: ArrayLike<number>,
  ): number {
    const count = from.length;
    if (to.length !== count || cap.length !== count || revCap.length !== count) {
      throw new ProblemValidationError(
        "to",
        `from, to, cap and revCap need the same length, got ${count}, ${to.length}, ${cap.length}, ${revCap.length}`,
      );
    }
    const start = this.edgeCount_;
    if (start + count > MAX_EDGES) {
      throw new ProblemValidationError("from", `a graph holds at most ${MAX_EDGES} edges`);
    }
    if (start + count > this.edgeCapacity) this.resize(this.nodeCapacity, start + count);
    const n = this.nodeCount_;
    if (
      this.linkEdges !== null &&
      count >= BULK &&
      from instanceof Int32Array &&
      to instanceof Int32Array
    ) {
      // WebAssembly links staged chunks and stops at a bad edge.
      let bad = -1;
      this.stage(count, from, to, cap, revCap, (offset, size) => {
        this.I32[H.ARG0 >> 2] = size;
        this.I32[H.ARG2 >> 2] = this.arcBase + ((start + offset) << 5);
        this.I32[H.ARG3 >> 2] = n;
        this.linkEdges!();
        const at = this.I32[H.RESULT >> 2]!;
        if (at >= 0) bad = offset + at;
        return at < 0;
      });
      if (bad >= 0) {
        this.unlink(start, bad);
        this.badEdge(bad, from[bad]!, to[bad]!, cap[bad]!, revCap[bad]!);
      }
    } else {
      const I32 = this.I32;
      const F64 = this.F64;
      const arcBase = this.arcBase;
      for (let k = 0; k < count; k++) {
        const u = from[k]!;
        const v = to[k]!;
        const c = cap[k]!;
        const r = revCap[k]!;
        if (!isValidEdge(u, v, n, c, r)) {
          this.unlink(start, k);
          this.badEdge(k, u, v, c, r);
        }
        linkArcPair(I32, F64, arcBase + ((start + k) << 5), u, v, c, r);
      }
    }
    this.edgeCount_ = start + count;
    if (this.solves > 0) {
      for (let k = 0; k < count; k++) {
        this.markNode(from[k]!);
        this.markNode(to[k]!);
      }
    }
    return start;
  }

  /**
   * Adds `capSource` to the capacity of source→i and `capSink` to that of i→sink (Kolmogorov's
   * `add_tweights`). Calls add up; negative values lower a capacity added before (each total
   * must stay ≥ 0 for the flow to be a cut's value). Works before and after a solve; after one,
   * the node is marked so that `maxflow(true)` takes the change into account.
   */
  addTerminalWeights(i: number, capSource: number, capSink: number): void {
    if (
      !(i >= 0 && i < this.nodeCount_ && (i | 0) === i) ||
      capSource - capSource !== 0 ||
      capSink - capSink !== 0
    ) {
      this.badTerminalWeights(i, capSource, capSink);
    }
    const F64 = this.F64;
    const term = (this.termBase >> 3) + 2 * i;
    F64[term]! += capSource;
    F64[term + 1]! += capSink;
    const at = (NODE_BASE >> 3) + (i << 2);
    const delta = F64[at]!;
    if (delta > 0) capSource += delta;
    else capSink -= delta;
    this.flow_ += Math.min(capSource, capSink);
    F64[at] = capSource - capSink + 0;
    if (this.solves > 0) this.mark(i);
  }

  /**
   * {@link addTerminalWeights} for many nodes at once: node `nodes[k]` gets `capSource[k]` and
   * `capSink[k]` added. Checks every entry before adding any (an error names the first bad
   * index).
   */
  addTerminalWeightsMany(
    nodes: ArrayLike<number>,
    capSource: ArrayLike<number>,
    capSink: ArrayLike<number>,
  ): void {
    const count = nodes.length;
    if (capSource.length !== count || capSink.length !== count) {
      throw new ProblemValidationError(
        "capSource",
        `nodes, capSource and capSink need the same length, got ${count}, ${capSource.length}, ${capSink.length}`,
      );
    }
    const n = this.nodeCount_;
    for (let k = 0; k < count; k++) {
      const i = nodes[k]!;
      const s = capSource[k]!;
      const t = capSink[k]!;
      if (!(i >= 0 && i < n && (i | 0) === i) || s - s !== 0 || t - t !== 0) {
        try {
          this.badTerminalWeights(i, s, t);
        } catch (error) {
          const e = error as ProblemValidationError;
          throw new ProblemValidationError(`${e.path}[${k}]`, e.message.slice(e.path.length + 2));
        }
      }
    }
    if (this.addTerminals !== null && count >= BULK) {
      this.F64[H.FLOW >> 3] = this.flow_;
      this.stage(count, nodes, null, capSource, capSink, (_offset, size) => {
        this.I32[H.ARG0 >> 2] = size;
        this.I32[H.ARG2 >> 2] = this.termBase;
        this.addTerminals!();
        return true;
      });
      this.flow_ = this.F64[H.FLOW >> 3]!;
    } else {
      const F64 = this.F64;
      const terms = this.termBase >> 3;
      let flow = this.flow_;
      for (let k = 0; k < count; k++) {
        const i = nodes[k]!;
        let s = capSource[k]!;
        let t = capSink[k]!;
        F64[terms + 2 * i]! += s;
        F64[terms + 2 * i + 1]! += t;
        const at = (NODE_BASE >> 3) + (i << 2);
        const delta = F64[at]!;
        if (delta > 0) s += delta;
        else t -= delta;
        flow += Math.min(s, t);
        F64[at] = s - t + 0;
      }
      this.flow_ = flow;
    }
    if (this.solves > 0) for (let k = 0; k < count; k++) this.markNode(nodes[k]!);
  }

  /**
   * Replaces the terminal capacities of node i (source→i becomes `capSource`, i→sink becomes
   * `capSink`): {@link addTerminalWeights} with the differences to the current totals.
   */
  setTerminalWeights(i: number, capSource: number, capSink: number): void {
    if (
      !(
        i >= 0 &&
        i < this.nodeCount_ &&
        (i | 0) === i &&
        capSource >= 0 &&
        capSink >= 0 &&
        capSource < Number.POSITIVE_INFINITY &&
        capSink < Number.POSITIVE_INFINITY
      )
    ) {
      this.checkNode(i);
      if (!(capSource >= 0 && capSource < Number.POSITIVE_INFINITY)) {
        this.badCapacity("capSource", capSource);
      }
      this.badCapacity("capSink", capSink);
    }
    // addTerminalWeights with the differences to the totals, which become the given values.
    const F64 = this.F64;
    const term = (this.termBase >> 3) + 2 * i;
    let s = capSource - F64[term]!;
    let t = capSink - F64[term + 1]!;
    F64[term] = capSource;
    F64[term + 1] = capSink;
    const at = (NODE_BASE >> 3) + (i << 2);
    const delta = F64[at]!;
    if (delta > 0) s += delta;
    else t -= delta;
    this.flow_ += Math.min(s, t);
    F64[at] = s - t + 0;
    if (this.solves > 0) this.mark(i);
  }

  /** The total source→i capacity given so far. */
  terminalSource(i: number): number {
    this.checkNode(i);
    return this.F64[(this.termBase >> 3) + 2 * i]!;
  }

  /** The total i→sink capacity given so far. */
  terminalSink(i: number): number {
    this.checkNode(i);
    return this.F64[(this.termBase >> 3) + 2 * i + 1]!;
  }

  /**
   * Marks node i as changed for the next `maxflow(true)` (Kolmogorov's `mark_node`). The graph's
   * own mutators already mark what they touch; marking more is harmless.
   */
  markNode(i: number): void {
    this.checkNode(i);
    this.mark(i);
  }

  private mark(i: number): void {
    const I32 = this.I32;
    const P = NODE_BASE + (i << 5);
    if (I32[(P + N.NEXT) >> 2] === -1) {
      if (this.markedLast !== -1) I32[(this.markedLast + N.NEXT) >> 2] = P;
      else this.markedFirst = P;
      this.markedLast = P;
      I32[(P + N.NEXT) >> 2] = P;
    }
    this.U8[P + N.MARKED] = 1;
  }

  /**
   * Computes a maximum flow and returns its value.
   *
   * With `reuseTrees`, the search trees and the flow of the previous solve are kept and the
   * marked nodes (see {@link markNode}) are re-examined first (on the first solve the flag is
   * ignored). With `trackChanges` (meaningful with `reuseTrees` only), {@link changedNodes} then
   * lists the nodes whose segment may differ from the previous solve's.
   */
  maxflow(reuseTrees = false, trackChanges = false): number {
    const reuse = reuseTrees && this.solves > 0;
    const track = reuse && trackChanges;
    const I32 = this.I32;
    const F64 = this.F64;
    I32[H.NODE_BASE >> 2] = NODE_BASE;
    I32[H.NODE_END >> 2] = NODE_BASE + this.nodeCount_ * NODE_BYTES;
    I32[H.RING_BASE >> 2] = this.ringBase;
    I32[H.RING_END >> 2] = this.ringBase + 4 * (this.nodeCount_ + 1);
    I32[H.STACK_BASE >> 2] = this.stackBase;
    I32[H.CHANGED_BASE >> 2] = this.changedBase;
    I32[H.CHANGED_COUNT >> 2] = this.changedCount;
    I32[H.TIME >> 2] = this.time;
    I32[H.MARKED_FIRST >> 2] = reuse ? this.markedFirst : -1;
    I32[H.REUSE >> 2] = reuse ? 1 : 0;
    I32[H.TRACK >> 2] = track ? 1 : 0;
    F64[H.FLOW >> 3] = this.flow_;
    if (this.run !== null) this.run();
    else maxflowKernel(I32, F64, this.U8);
    this.time = I32[H.TIME >> 2]!;
    this.changedCount = I32[H.CHANGED_COUNT >> 2]!;
    this.flow_ = F64[H.FLOW >> 3]!;
    this.changedValid = track;
    this.markedFirst = -1;
    this.markedLast = -1;
    this.solves++;
    return this.flow_;
  }

  /**
   * The segment of node i after a solve: {@link Segment.Source} when i is in the source search
   * tree, {@link Segment.Sink} when in the sink tree, and `defaultSegment` when in neither (such
   * nodes can go on either side of a minimum cut). With `Segment.Sink` as default, the source
   * side is the smallest one (the nodes reachable from the source in the residual graph); with
   * `Segment.Source`, the largest (the nodes from which the sink cannot be reached).
   */
  whatSegment(i: number, defaultSegment: Segment = Segment.Source): Segment {
    this.checkNode(i);
    const P = NODE_BASE + (i << 5);
    if (this.I32[(P + N.PARENT) >> 2] === NONE) return defaultSegment;
    return this.U8[P + N.SINK] === 0 ? Segment.Source : Segment.Sink;
  }

  /**
   * A minimum cut after a solve, as source-side flags (1 = source side) for nodes 0 … n−1:
   * `"smallest"` gives the nodes reachable from the source in the residual graph (the
   * intersection of the source sides of all minimum cuts), `"largest"` all nodes from which the
   * sink cannot be reached (their union). Writes into `out` when given (length ≥ n).
   */
  minCut(side: CutSide = "smallest", out?: Uint8Array): Uint8Array {
    const n = this.nodeCount_;
    const result = out ?? new Uint8Array(n);
    if (result.length < n) {
      throw new ProblemValidationError("out", `needs length ≥ ${n}, got ${result.length}`);
    }
    const I32 = this.I32;
    const U8 = this.U8;
    const free = side === "smallest" ? 0 : 1;
    for (let i = 0, P = NODE_BASE; i < n; i++, P += NODE_BYTES) {
      result[i] = I32[(P + N.PARENT) >> 2] === NONE ? free : U8[P + N.SINK] === 0 ? 1 : 0;
    }
    return result;
  }

  /**
   * After `maxflow(true, true)`: the nodes whose segment may have changed in that solve (a view
   * into the graph's own memory, valid until the graph changes). `null` when the last solve did
   * not track changes (then any node may have changed).
   */
  changedNodes(): Int32Array | null {
    if (!this.changedValid) return null;
    const start = this.changedBase >> 2;
    return this.I32.subarray(start, start + this.changedCount);
  }

  /**
   * The residual capacity of edge e's arc u→v (`reverse` false) or v→u (`reverse` true). The flow
   * on u→v is `cap − residual(u→v)` (negative: flow along v→u).
   */
  edgeResidual(e: number, reverse = false): number {
    if (!(e >= 0 && e < this.edgeCount_ && (e | 0) === e)) {
      throw new ProblemValidationError("e", `no edge ${e} (the graph has ${this.edgeCount_})`);
    }
    return this.F64[(this.arcBase + (e << 5) + (reverse ? ARC_BYTES : 0) + R.CAP) >> 3]!;
  }

  /**
   * Node i's residual terminal capacity: > 0 is what source→i can still carry, < 0 what i→sink
   * can (one of the two is always saturated).
   */
  terminalResidual(i: number): number {
    this.checkNode(i);
    return this.F64[(NODE_BASE + (i << 5) + N.TR) >> 3]!;
  }

  /**
   * Copies `count` entries of four columns into the staging area chunk by chunk and calls `call`
   * (offset, size) after each chunk; `false` stops.
   */
  private stage(
    count: number,
    c0: ArrayLike<number>,
    c1: ArrayLike<number> | null,
    c2: ArrayLike<number>,
    c3: ArrayLike<number>,
    call: (offset: number, size: number) => boolean,
  ): void {
    const chunk = this.chunk;
    const i32 = this.stageBase >> 2;
    const f64 = this.stageBase >> 3;
    this.I32[H.ARG1 >> 2] = this.stageBase;
    this.I32[H.ARG4 >> 2] = chunk;
    for (let offset = 0; offset < count; offset += chunk) {
      const size = Math.min(chunk, count - offset);
      this.I32.set(part(c0, offset, size), i32);
      if (c1 !== null) this.I32.set(part(c1, offset, size), i32 + chunk);
      this.F64.set(part(c2, offset, size), f64 + chunk);
      this.F64.set(part(c3, offset, size), f64 + 2 * chunk);
      if (!call(offset, size)) return;
    }
  }

  /** Unlinks the edges start … start + count − 1 (each was prepended to two lists: newest first). */
  private unlink(start: number, count: number): void {
    const I32 = this.I32;
    for (let j = count - 1; j >= 0; j--) {
      const A = this.arcBase + ((start + j) << 5);
      I32[(I32[(A >> 2) | 2]! >> 2) | 2] = I32[(A >> 2) + 7]!;
      I32[(I32[(A >> 2) + 6]! >> 2) | 2] = I32[(A >> 2) | 3]!;
    }
  }

  /**
   * Lays the buffer out for at least `nodes` nodes and `edges` edges (capacities double). When
   * the node region grows, the terminal totals and the arcs move up, and every stored arc address
   * shifts with them; node addresses never move. The changed list is dropped (its flags cleared).
   */
  private resize(nodes: number, edges: number): void {
    let nodeCap = Math.max(MIN_NODES, this.nodeCapacity);
    while (nodeCap < nodes) nodeCap *= 2;
    nodeCap = Math.min(nodeCap, MAX_NODES);
    let edgeCap = Math.max(MIN_EDGES, this.edgeCapacity);
    while (edgeCap < edges) edgeCap *= 2;
    edgeCap = Math.min(edgeCap, MAX_EDGES);

    // Drop the changed list (its flags live in the node records, which stay).
    const listStart = this.changedBase >> 2;
    for (let k = 0; k < this.changedCount; k++) {
      this.U8[NODE_BASE + (this.I32[listStart + k]! << 5) + N.LISTED] = 0;
    }
    this.changedCount = 0;
    this.changedValid = false;

    const layout = layoutOf(nodeCap, edgeCap);
    const oldTerm = this.termBase;
    const oldArc = this.arcBase;
    const termBytes = this.nodeCount_ * TERM_BYTES;
    const arcBytes = this.edgeCount_ * 2 * ARC_BYTES;
    if (this.memory !== null) {
      const have = this.memory.buffer.byteLength;
      if (layout.bytes > have) this.memory.grow(Math.ceil((layout.bytes - have) / PAGE));
      this.views(this.memory.buffer);
      // Regions only move up, the arcs (above) first; copyWithin handles each overlap.
      if (oldArc !== 0) {
        this.U8.copyWithin(layout.arcBase, oldArc, oldArc + arcBytes);
        this.U8.copyWithin(layout.termBase, oldTerm, oldTerm + termBytes);
      }
    } else {
      const U8 = new Uint8Array(layout.bytes);
      if (oldArc !== 0) {
        U8.set(this.U8.subarray(0, NODE_BASE + this.nodeCount_ * NODE_BYTES));
        U8.set(this.U8.subarray(oldTerm, oldTerm + termBytes), layout.termBase);
        U8.set(this.U8.subarray(oldArc, oldArc + arcBytes), layout.arcBase);
      }
      this.views(U8.buffer);
    }
    const shift = layout.arcBase - oldArc;
    if (oldArc !== 0 && shift !== 0) {
      const I32 = this.I32;
      for (let P = NODE_BASE; P < NODE_BASE + this.nodeCount_ * NODE_BYTES; P += NODE_BYTES) {
        if (I32[(P + N.FIRST) >> 2]! >= 0) I32[(P + N.FIRST) >> 2]! += shift;
        if (I32[(P + N.PARENT) >> 2]! >= 0) I32[(P + N.PARENT) >> 2]! += shift;
      }
      const end = layout.arcBase + arcBytes;
      for (let A = layout.arcBase; A < end; A += ARC_BYTES) {
        if (I32[(A + R.NEXT) >> 2]! >= 0) I32[(A + R.NEXT) >> 2]! += shift;
      }
    }
    this.termBase = layout.termBase;
    this.arcBase = layout.arcBase;
    this.ringBase = layout.ringBase;
    this.stackBase = layout.stackBase;
    this.changedBase = layout.changedBase;
    this.stageBase = layout.stageBase;
    this.chunk = layout.chunk;
    this.nodeCapacity = nodeCap;
    this.edgeCapacity = edgeCap;
    this.I32[H.NODE_BASE >> 2] = NODE_BASE;
  }

  private views(buffer: ArrayBuffer): void {
    this.I32 = new Int32Array(buffer);
    this.F64 = new Float64Array(buffer);
    this.U8 = new Uint8Array(buffer);
  }

  private checkNode(i: number): void {
    if (!(i >= 0 && i < this.nodeCount_ && (i | 0) === i)) this.badNode("i", i);
  }

  private badNode(name: string, value: number): never {
    throw new ProblemValidationError(
      name,
      `no node ${value} (the graph has ${this.nodeCount_} nodes)`,
    );
  }

  private badEdge(k: number, u: number, v: number, cap: number, revCap: number): never {
    const n = this.nodeCount_;
    if (!(u >= 0 && u < n && (u | 0) === u)) {
      throw new ProblemValidationError(`from[${k}]`, `no node ${u} (the graph has ${n} nodes)`);
    }
    if (!(v >= 0 && v < n && (v | 0) === v)) {
      throw new ProblemValidationError(`to[${k}]`, `no node ${v} (the graph has ${n} nodes)`);
    }
    if (u === v) {
      throw new ProblemValidationError(`to[${k}]`, `an edge needs two nodes, got ${u} → ${v}`);
    }
    const [name, value] =
      cap >= 0 && cap < Number.POSITIVE_INFINITY ? ["revCap", revCap] : ["cap", cap];
    throw new ProblemValidationError(
      `${name}[${k}]`,
      `expected a finite capacity ≥ 0, got ${value}`,
    );
  }

  private badCapacity(name: string, value: number): never {
    throw new ProblemValidationError(name, `expected a finite capacity ≥ 0, got ${value}`);
  }

  private badTerminalWeights(i: number, capSource: number, capSink: number): never {
    this.checkNode(i);
    const name = Number.isFinite(capSource) ? "capSink" : "capSource";
    const value = Number.isFinite(capSource) ? capSink : capSource;
    throw new ProblemValidationError(name, `expected a finite number, got ${value}`);
  }
}

/** Where each region lies for these capacities (see `layout.ts`). */
function layoutOf(nodes: number, edges: number) {
  const termBase = NODE_BASE + nodes * NODE_BYTES;
  const arcBase = termBase + nodes * TERM_BYTES; // nodes is a power of two ≥ 16: 32-aligned
  const ringBase = arcBase + edges * 2 * ARC_BYTES;
  const stackBase = ringBase + 4 * (nodes + 1);
  const changedBase = stackBase + 4 * nodes;
  const stageBase = (changedBase + 4 * nodes + 7) & ~7;
  const chunk = Math.max(256, Math.min(8192, edges));
  return {
    termBase,
    arcBase,
    ringBase,
    stackBase,
    changedBase,
    stageBase,
    chunk,
    bytes: stageBase + 24 * chunk,
  };
}

/** Entries offset … offset + size − 1 of an array-like, as something TypedArray.set takes. */
function part(values: ArrayLike<number>, offset: number, size: number): ArrayLike<number> {
  if (offset === 0 && size === values.length) return values;
  if (ArrayBuffer.isView(values)) {
    return (values as unknown as Float64Array).subarray(offset, offset + size);
  }
  return Array.prototype.slice.call(values, offset, offset + size) as number[];
}

function clampCount(value: number | undefined, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.ceil(value ?? 0) || 0));
}
