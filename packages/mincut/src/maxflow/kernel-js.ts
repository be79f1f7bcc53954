/**
 * Boykov–Kolmogorov max-flow on the layout of `layout.ts`, in TypeScript: the readable reference
 * for the WebAssembly kernel (`kernel-wasm.ts` emits the same steps instruction for instruction)
 * and the fallback where WebAssembly is missing. It follows Kolmogorov's MAXFLOW v3.04
 * (`maxflow_init` / `maxflow_reuse_trees_init`, then grow, augment, adopt with the same queue and
 * orphan orders), so both build the same search trees and end with the same residual capacities
 * as the C++ library.
 *
 * Reads its inputs from the header (node range, scratch areas, reuse and track flags, the time
 * stamp, the marked list, the flow) and writes back the flow, the time stamp and the length of
 * the changed list. `I32`, `F64` and `U8` view the same buffer; addresses are byte offsets.
 */
export function maxflowKernel(I32: Int32Array, F64: Float64Array, U8: Uint8Array): void {
  // The values of layout.ts's constants, as locals: V8 folds these, while it loads and checks
  // imported and module-level bindings at every use.
  const NONE = -1;
  const TERMINAL = -2;
  const ORPHAN = -3;
  const INFINITE_D = 0x3fffffff;
  const TIME_LIMIT = 0x3fffffff;
  // Header fields, by Int32 index (H.* / 4).
  const nb = I32[0]!;
  const end = I32[1]!;
  const ringBase = I32[2]!;
  const ringEnd = I32[3]!;
  const stackBase = I32[4]!;
  const changedBase = I32[5]!;
  const reuse = I32[9]! !== 0;
  const track = I32[10]! !== 0;

  // The flags of the previous changed list (only tracked solves set them).
  for (let k = 0, count = I32[6]!; k < count; k++) {
    U8[(nb + (I32[(changedBase >> 2) + k]! << 5)) | 30] = 0;
  }
  let changedCount = 0;
  let flow = F64[6]!; // H.FLOW
  let time: number;
  // Active queues (node addresses): queue 0 is being consumed, queue 1 receives (Kolmogorov's
  // two queues).
  let qFirst0 = -1;
  let qFirst1 = -1;
  let qLast1 = -1;
  // Adoption: a FIFO ring (Kolmogorov's set_orphan_rear) and a stack (set_orphan_front).
  let ringHead = ringBase;
  let ringTail = ringBase;
  let stackTop = stackBase;

  if (!reuse) {
    // ---- maxflow_init: every node with terminal capacity roots a tree and is active ----
    time = 0;
    for (let P = nb; P < end; P += 32) {
      I32[(P >> 2) | 4] = -1;
      I32[(P >> 2) | 5] = 0;
      U8[P | 29] = 0;
      const c = F64[P >> 3]!;
      if (c !== 0) {
        U8[P | 28] = c > 0 ? 0 : 1;
        I32[(P >> 2) | 3] = TERMINAL;
        I32[(P >> 2) | 6] = 1;
        if (qLast1 !== -1) I32[(qLast1 >> 2) | 4] = P;
        else qFirst1 = P;
        qLast1 = P;
        I32[(P >> 2) | 4] = P;
      } else {
        I32[(P >> 2) | 3] = NONE;
      }
    }
  } else {
    // ---- maxflow_reuse_trees_init: re-root or free the marked nodes ----
    time = I32[7]!; // H.TIME
    if (time >= TIME_LIMIT) {
      // Renumber before the stamps overflow: only equality with the current time matters for
      // correctness (the `≤` comparison in growth is a heuristic).
      for (let P = nb; P < end; P += 32) I32[(P >> 2) | 5] = 0;
      time = 0;
    }
    time++;
    let queue = I32[8]!; // H.MARKED_FIRST
    while (queue !== -1) {
      const P = queue;
      queue = I32[(P >> 2) | 4]!;
      if (queue === P) queue = -1;
      U8[P | 29] = 0;
      // set_active(P): P was queued on the marked list, so it is appended unconditionally.
      I32[(P >> 2) | 4] = P;
      if (qLast1 !== -1) I32[(qLast1 >> 2) | 4] = P;
      else qFirst1 = P;
      qLast1 = P;

      const c = F64[P >> 3]!;
      if (c === 0) {
        if (I32[(P >> 2) | 3] !== NONE) {
          I32[(P >> 2) | 3] = ORPHAN;
          I32[ringTail >> 2] = P;
          ringTail += 4;
          if (ringTail === ringEnd) ringTail = ringBase;
        }
        continue;
      }
      const toSink = c > 0 ? 0 : 1;
      if (I32[(P >> 2) | 3] === NONE || U8[P | 28] !== toSink) {
        // P changes trees (or joins one): its children in the other tree become orphans, and
        // neighbours in the other tree with a residual arc towards it become active.
        U8[P | 28] = toSink;
        for (let A = I32[(P >> 2) | 2]!; A !== -1; A = I32[(A >> 2) | 3]!) {
          const Q = I32[(A >> 2) | 2]!;
          if (U8[Q | 29] === 0) {
            if (I32[(Q >> 2) | 3] === (A ^ 16)) {
              I32[(Q >> 2) | 3] = ORPHAN;
              I32[ringTail >> 2] = Q;
              ringTail += 4;
              if (ringTail === ringEnd) ringTail = ringBase;
            }
            if (
              I32[(Q >> 2) | 3] !== NONE &&
              U8[Q | 28] !== toSink &&
              F64[(toSink === 0 ? A : A ^ 16) >> 3]! > 0 &&
              I32[(Q >> 2) | 4] === -1
            ) {
              if (qLast1 !== -1) I32[(qLast1 >> 2) | 4] = Q;
              else qFirst1 = Q;
              qLast1 = Q;
              I32[(Q >> 2) | 4] = Q;
            }
          }
        }
        if (track && U8[P | 30] === 0) {
          U8[P | 30] = 1;
          I32[(changedBase >> 2) + changedCount++] = (P - nb) >> 5;
        }
      }
      I32[(P >> 2) | 3] = TERMINAL;
      I32[(P >> 2) | 5] = time;
      I32[(P >> 2) | 6] = 1;
    }
  }

  // ---- the main loop: adopt, pick an active node, grow, augment ----
  let current = -1;
  for (;;) {
    // ---- adoption: the reuse init's orphans (FIFO); then after each augmentation its
    // orphans, last made first, each followed by the orphans its processing makes (FIFO) ----
    while (stackTop !== stackBase || ringHead !== ringTail) {
      let O: number;
      if (ringHead !== ringTail) {
        O = I32[ringHead >> 2]!;
        ringHead += 4;
        if (ringHead === ringEnd) ringHead = ringBase;
      } else {
        stackTop -= 4;
        O = I32[stackTop >> 2]!;
      }
      const side = U8[O | 28]!;
      // The residual arc into O's tree: Q→O (the sister, A ^ 16) in the source tree, O→Q (A
      // itself) in the sink tree; `flip` picks it without a branch.
      const flip = (side ^ 1) << 4;
      let bestArc = -1;
      let bestD = INFINITE_D;
      for (let A = I32[(O >> 2) | 2]!; A !== -1; A = I32[(A >> 2) | 3]!) {
        if (F64[(A ^ flip) >> 3] !== 0) {
          let Q = I32[(A >> 2) | 2]!;
          if (U8[Q | 28] === side && I32[(Q >> 2) | 3] !== NONE) {
            // Where does Q's tree path lead: to the terminal (d = its length) or an orphan?
            let d = 0;
            for (;;) {
              if (I32[(Q >> 2) | 5] === time) {
                d += I32[(Q >> 2) | 6]!;
                break;
              }
              const parent = I32[(Q >> 2) | 3]!;
              d++;
              if (parent === TERMINAL) {
                I32[(Q >> 2) | 5] = time;
                I32[(Q >> 2) | 6] = 1;
                break;
              }
              if (parent === ORPHAN) {
                d = INFINITE_D;
                break;
              }
              Q = I32[(parent >> 2) | 2]!;
            }
            if (d < INFINITE_D) {
              if (d < bestD) {
                bestArc = A;
                bestD = d;
              }
              // Stamp the path so that later walks stop early.
              for (
                Q = I32[(A >> 2) | 2]!;
                I32[(Q >> 2) | 5] !== time;
                Q = I32[(I32[(Q >> 2) | 3]! >> 2) | 2]!
              ) {
                I32[(Q >> 2) | 5] = time;
                I32[(Q >> 2) | 6] = d--;
              }
            }
          }
        }
      }
      I32[(O >> 2) | 3] = bestArc;
      if (bestArc !== -1) {
        I32[(O >> 2) | 5] = time;
        I32[(O >> 2) | 6] = bestD + 1;
      } else {
        // No parent: O becomes free. Its neighbours in the tree may grow into it again, and
        // its children are orphans.
        if (track && U8[O | 30] === 0) {
          U8[O | 30] = 1;
          I32[(changedBase >> 2) + changedCount++] = (O - nb) >> 5;
        }
        for (let A = I32[(O >> 2) | 2]!; A !== -1; A = I32[(A >> 2) | 3]!) {
          const Q = I32[(A >> 2) | 2]!;
          const parent = I32[(Q >> 2) | 3]!;
          if (U8[Q | 28] === side && parent !== NONE) {
            if (F64[(A ^ flip) >> 3] !== 0 && I32[(Q >> 2) | 4] === -1) {
              if (qLast1 !== -1) I32[(qLast1 >> 2) | 4] = Q;
              else qFirst1 = Q;
              qLast1 = Q;
              I32[(Q >> 2) | 4] = Q;
            }
            if (parent >= 0 && I32[(parent >> 2) | 2] === O) {
              I32[(Q >> 2) | 3] = ORPHAN;
              I32[ringTail >> 2] = Q;
              ringTail += 4;
              if (ringTail === ringEnd) ringTail = ringBase;
            }
          }
        }
      }
    }

    // ---- the next active node: the current one while it keeps finding paths ----
    let P = current;
    if (P !== -1) {
      I32[(P >> 2) | 4] = -1;
      if (I32[(P >> 2) | 3] === NONE) P = -1;
    }
    if (P === -1) {
      for (;;) {
        P = qFirst0;
        if (P === -1) {
          P = qFirst1;
          qFirst0 = qFirst1;
          qFirst1 = -1;
          qLast1 = -1;
          if (P === -1) break;
        }
        const after = I32[(P >> 2) | 4]!;
        qFirst0 = after === P ? -1 : after;
        I32[(P >> 2) | 4] = -1;
        if (I32[(P >> 2) | 3] !== NONE) break;
      }
      if (P === -1) break;
    }

    // ---- growth: claim free neighbours; stop at an arc into the other tree ----
    let middle = -1;
    const tsP = I32[(P >> 2) | 5]!;
    const distP = I32[(P >> 2) | 6]!;
    if (U8[P | 28] === 0) {
      for (let A = I32[(P >> 2) | 2]!; A !== -1; A = I32[(A >> 2) | 3]!) {
        if (F64[A >> 3] !== 0) {
          const Q = I32[(A >> 2) | 2]!;
          if (I32[(Q >> 2) | 3] === NONE) {
            U8[Q | 28] = 0;
            I32[(Q >> 2) | 3] = A ^ 16;
            I32[(Q >> 2) | 5] = tsP;
            I32[(Q >> 2) | 6] = distP + 1;
            if (I32[(Q >> 2) | 4] === -1) {
              if (qLast1 !== -1) I32[(qLast1 >> 2) | 4] = Q;
              else qFirst1 = Q;
              qLast1 = Q;
              I32[(Q >> 2) | 4] = Q;
            }
            if (track && U8[Q | 30] === 0) {
              U8[Q | 30] = 1;
              I32[(changedBase >> 2) + changedCount++] = (Q - nb) >> 5;
            }
          } else if (U8[Q | 28] !== 0) {
            middle = A;
            break;
          } else if (I32[(Q >> 2) | 5]! <= tsP && I32[(Q >> 2) | 6]! > distP) {
            // A shorter path to the source through P.
            I32[(Q >> 2) | 3] = A ^ 16;
            I32[(Q >> 2) | 5] = tsP;
            I32[(Q >> 2) | 6] = distP + 1;
          }
        }
      }
    } else {
      for (let A = I32[(P >> 2) | 2]!; A !== -1; A = I32[(A >> 2) | 3]!) {
        if (F64[(A ^ 16) >> 3] !== 0) {
          const Q = I32[(A >> 2) | 2]!;
          if (I32[(Q >> 2) | 3] === NONE) {
            U8[Q | 28] = 1;
            I32[(Q >> 2) | 3] = A ^ 16;
            I32[(Q >> 2) | 5] = tsP;
            I32[(Q >> 2) | 6] = distP + 1;
            if (I32[(Q >> 2) | 4] === -1) {
              if (qLast1 !== -1) I32[(qLast1 >> 2) | 4] = Q;
              else qFirst1 = Q;
              qLast1 = Q;
              I32[(Q >> 2) | 4] = Q;
            }
            if (track && U8[Q | 30] === 0) {
              U8[Q | 30] = 1;
              I32[(changedBase >> 2) + changedCount++] = (Q - nb) >> 5;
            }
          } else if (U8[Q | 28] === 0) {
            middle = A ^ 16;
            break;
          } else if (I32[(Q >> 2) | 5]! <= tsP && I32[(Q >> 2) | 6]! > distP) {
            I32[(Q >> 2) | 3] = A ^ 16;
            I32[(Q >> 2) | 5] = tsP;
            I32[(Q >> 2) | 6] = distP + 1;
          }
        }
      }
    }

    time++;

    if (middle === -1) {
      current = -1;
      continue;
    }
    I32[(P >> 2) | 4] = P; // the current node counts as queued while it keeps being processed
    current = P;

    // ---- augmentation along source → … → tail(middle) → head(middle) → … → sink ----
    const tail = I32[((middle ^ 16) >> 2) | 2]!;
    const head = I32[(middle >> 2) | 2]!;
    let bottleneck = F64[middle >> 3]!;
    let K = tail;
    for (;;) {
      const A = I32[(K >> 2) | 3]!;
      if (A === TERMINAL) break;
      const c = F64[(A ^ 16) >> 3]!;
      if (bottleneck > c) bottleneck = c;
      K = I32[(A >> 2) | 2]!;
    }
    if (bottleneck > F64[K >> 3]!) bottleneck = F64[K >> 3]!;
    K = head;
    for (;;) {
      const A = I32[(K >> 2) | 3]!;
      if (A === TERMINAL) break;
      const c = F64[A >> 3]!;
      if (bottleneck > c) bottleneck = c;
      K = I32[(A >> 2) | 2]!;
    }
    if (bottleneck > -F64[K >> 3]!) bottleneck = -F64[K >> 3]!;

    F64[(middle ^ 16) >> 3]! += bottleneck;
    F64[middle >> 3]! -= bottleneck;
    K = tail;
    for (;;) {
      const A = I32[(K >> 2) | 3]!;
      if (A === TERMINAL) break;
      F64[A >> 3]! += bottleneck;
      const c = F64[(A ^ 16) >> 3]! - bottleneck;
      F64[(A ^ 16) >> 3] = c;
      if (c === 0) {
        I32[(K >> 2) | 3] = ORPHAN;
        I32[stackTop >> 2] = K;
        stackTop += 4;
      }
      K = I32[(A >> 2) | 2]!;
    }
    {
      const c = F64[K >> 3]! - bottleneck;
      F64[K >> 3] = c;
      if (c === 0) {
        I32[(K >> 2) | 3] = ORPHAN;
        I32[stackTop >> 2] = K;
        stackTop += 4;
      }
    }
    K = head;
    for (;;) {
      const A = I32[(K >> 2) | 3]!;
      if (A === TERMINAL) break;
      F64[(A ^ 16) >> 3]! += bottleneck;
      const c = F64[A >> 3]! - bottleneck;
      F64[A >> 3] = c;
      if (c === 0) {
        I32[(K >> 2) | 3] = ORPHAN;
        I32[stackTop >> 2] = K;
        stackTop += 4;
      }
      K = I32[(A >> 2) | 2]!;
    }
    {
      const c = F64[K >> 3]! + bottleneck;
      F64[K >> 3] = c;
      if (c === 0) {
        I32[(K >> 2) | 3] = ORPHAN;
        I32[stackTop >> 2] = K;
        stackTop += 4;
      }
    }
    flow += bottleneck;
  }

  I32[7] = time; // H.TIME
  I32[6] = changedCount; // H.CHANGED_COUNT
  F64[6] = flow; // H.FLOW
}
