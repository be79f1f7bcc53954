/**
 * The memory layout a {@link MaxflowGraph} keeps its nodes and arcs in, shared by the two kernels
 * that run Boykov–Kolmogorov on it (WebAssembly, and the same algorithm in TypeScript). Everything
 * lives in one buffer and every pointer is a byte address in it, so that following a pointer is
 * one load, and what one step of the algorithm reads about a node or an arc pair shares a cache
 * line, as with the C++ library's structs:
 *
 * ```
 * [header, 128 bytes][nodes, 32 bytes each][terminal totals, 16 bytes per node][arcs, 16 bytes
 * each][orphan ring][orphan stack][changed list][staging for bulk building]
 * ```
 *
 * - node i at `P = nodeBase + 32i`: f64 residual terminal capacity at +0 (> 0: from the source,
 *   < 0: to the sink), i32 first outgoing arc at +8 (-1: none), i32 parent arc at +12 (towards
 *   the parent, or {@link NONE} / {@link TERMINAL} / {@link ORPHAN}), i32 next node in the
 *   active queue at +16 (itself when last, -1 when not queued), i32 time stamp at +20, i32
 *   distance to the terminal at +24, u8 in-the-sink-tree at +28, u8 marked at +29, u8 listed as
 *   changed at +30;
 * - arc at `A = arcBase + 16a`: f64 residual capacity at +0, i32 head node at +8, i32 next arc
 *   out of the same tail at +12 (-1: none). Edge e owns the arcs at `arcBase + 32e` (u→v) and
 *   `+ 16` (v→u); `arcBase` is a multiple of 32, so an arc's sister is `A ^ 16`.
 *
 * - terminal totals of node i at `termBase + 16i`: f64 source capacity, f64 sink capacity (what
 *   `setTerminalWeights` replaces);
 * - staging: `chunk` entries of each of i32 `from` (or node), i32 `to`, f64 `cap` (or source
 *   capacity), f64 `revCap` (or sink capacity), in that order, for bulk building.
 *
 * The header carries the inputs and outputs of the kernels' functions (byte offsets {@link H}).
 */

/** Header fields (byte offsets; i32 unless noted). */
export const H = {
  NODE_BASE: 0,
  NODE_END: 4,
  RING_BASE: 8,
  RING_END: 12,
  STACK_BASE: 16,
  CHANGED_BASE: 20,
  /** In: the previous list's length (whose flags are cleared); out: the new list's length. */
  CHANGED_COUNT: 24,
  /** In (reuse) and out: the time stamp of the last growth. */
  TIME: 28,
  /** In (reuse): the first marked node (address), or -1. */
  MARKED_FIRST: 32,
  REUSE: 36,
  TRACK: 40,
  /** f64 in and out: the flow. */
  FLOW: 48,
  /** Arguments of the bulk-building functions (see `kernel-wasm.ts`). */
  ARG0: 64,
  ARG1: 68,
  ARG2: 72,
  ARG3: 76,
  ARG4: 80,
  /** i32 out: the first bad entry of a bulk call, or -1. */
  RESULT: 84,
} as const;
export const HEADER_BYTES = 128;
export const TERM_BYTES = 16;

/** Node record fields (byte offsets). */
export const N = {
  TR: 0,
  FIRST: 8,
  PARENT: 12,
  NEXT: 16,
  TS: 20,
  DIST: 24,
  SINK: 28,
  MARKED: 29,
  LISTED: 30,
} as const;
export const NODE_BYTES = 32;

/** Arc record fields (byte offsets). */
export const R = { CAP: 0, HEAD: 8, NEXT: 12 } as const;
export const ARC_BYTES = 16;
/** `A ^ SISTER` is the reverse arc of A. */
export const SISTER = 16;

/** Parent sentinels (arcs are ≥ 0): a free node, a child of its terminal, an orphan. */
export const NONE = -1;
export const TERMINAL = -2;
export const ORPHAN = -3;
export const INFINITE_D = 0x3fffffff;
/** Time stamps are renumbered from 0 before they reach this. */
export const TIME_LIMIT = 0x3fffffff;
