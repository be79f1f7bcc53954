import { assembleModule, compiledOnce, F64, I32, sleb, uleb } from "@lagrange/core/wasm";
import { H, INFINITE_D, N, NONE, ORPHAN, R, SISTER, TERMINAL, TIME_LIMIT } from "./layout.js";

/**
 * The Boykov–Kolmogorov kernel as a WebAssembly module, emitted from TypeScript (no binary blob,
 * no build step). It is `maxflowKernel` of `kernel-js.ts` step for step, on the same layout and
 * header, so the two leave identical memory; the tests run both. In WebAssembly a memory access
 * is one instruction, where V8 checks a typed array's map, reloads its base and length, and
 * bounds-checks the index; on these pointer-chasing loops that makes the module several times
 * faster than the TypeScript.
 *
 * The module imports its memory as `env.memory` and exports three functions without parameters
 * (arguments and results go through the header): `maxflow()`, and the bulk builders
 * `addEdges()` and `addTerminals()`, which link staged edges and add staged terminal capacities
 * as `MaxflowGraph.addEdges` / `addTerminalWeightsMany` do in TypeScript.
 */

// ---- on core's assembler: instructions as byte arrays, structured control flow with named labels

type Marker =
  | { readonly open: 0x02 | 0x03 | 0x04; readonly label: string | null }
  | { readonly close: true }
  | { readonly other: true }
  | { readonly branch: 0x0c | 0x0d; readonly label: string };
type Item = number | Marker;
type Code = Item[];

const seq = (...parts: Code[]): Code => parts.flat();

/** Locals: i32 first, then f64, numbered in declaration order. */
const I32_LOCALS = [
  "nb",
  "end",
  "ringBase",
  "ringEnd",
  "stackBase",
  "changedBase",
  "reuse",
  "track",
  "k",
  "count",
  "changedCount",
  "time",
  "qFirst0",
  "qFirst1",
  "qLast1",
  "ringHead",
  "ringTail",
  "stackTop",
  "current",
  "P",
  "Q",
  "A",
  "O",
  "K",
  "queue",
  "toSink",
  "side",
  "flip",
  "bestArc",
  "bestD",
  "d",
  "parent",
  "tsP",
  "distP",
  "middle",
  "tail",
  "head",
  "after",
  "u",
  "v",
  "U",
  "V",
  "n",
  "stage",
  "chunk",
  "termBase",
  "T",
] as const;
const F64_LOCALS = ["flow", "c", "bottleneck", "s", "t", "r"] as const;
type LocalName = (typeof I32_LOCALS)[number] | (typeof F64_LOCALS)[number];
const localIndex = new Map<string, number>(
  [...I32_LOCALS, ...F64_LOCALS].map((name, index) => [name, index]),
);
const idx = (x: LocalName) => localIndex.get(x)!;

const get = (x: LocalName): Code => [0x20, ...uleb(idx(x))];
const set = (x: LocalName, value: Code): Code => [...value, 0x21, ...uleb(idx(x))];
const c = (v: number): Code => [0x41, ...sleb(v)];
const fc = (v: number): Code => [0x44, ...new Uint8Array(Float64Array.of(v).buffer)];
/** Binary operators evaluate both operands: never guard a load with `and` / `or`. */
const binary =
  (opcode: number) =>
  (a: Code, b: Code): Code => [...a, ...b, opcode];
const eqz = (a: Code): Code => [...a, 0x45];
const eq = binary(0x46);
const ne = binary(0x47);
const ltS = binary(0x48);
const ltU = binary(0x49);
const gtS = binary(0x4a);
const leS = binary(0x4c);
const geS = binary(0x4e);
const add = binary(0x6a);
const sub = binary(0x6b);
const and = binary(0x71);
const or = binary(0x72);
const xor = binary(0x73);
const shl = binary(0x74);
const shrS = binary(0x75);
const feq = binary(0x61);
const fne = binary(0x62);
const flt = binary(0x63);
const fgt = binary(0x64);
const fge = binary(0x66);
const fmin = binary(0xa4);
const fadd = binary(0xa0);
const fsub = binary(0xa1);
const fneg = (a: Code): Code => [...a, 0x9a];
/** `cond ? a : b` (all three evaluated). */
const select = (a: Code, b: Code, cond: Code): Code => [...a, ...b, ...cond, 0x1b];
/** local += k */
const inc = (x: LocalName, k: number): Code => set(x, add(get(x), c(k)));

const ld = (addr: Code, offset: number): Code => [...addr, 0x28, 2, ...uleb(offset)];
const st = (addr: Code, offset: number, value: Code): Code => [
  ...addr,
  ...value,
  0x36,
  2,
  ...uleb(offset),
];
const ld8 = (addr: Code, offset: number): Code => [...addr, 0x2d, 0, ...uleb(offset)];
const st8 = (addr: Code, offset: number, value: Code): Code => [
  ...addr,
  ...value,
  0x3a,
  0,
  ...uleb(offset),
];
const fld = (addr: Code, offset: number): Code => [...addr, 0x2b, 3, ...uleb(offset)];
const fst = (addr: Code, offset: number, value: Code): Code => [
  ...addr,
  ...value,
  0x39,
  3,
  ...uleb(offset),
];

const block = (label: string, ...body: Code[]): Code => [
  { open: 0x02, label },
  ...body.flat(),
  { close: true },
];
const loop = (label: string, ...body: Code[]): Code => [
  { open: 0x03, label },
  ...body.flat(),
  { close: true },
];
const if_ = (cond: Code, then: Code, otherwise?: Code): Code => [
  ...cond,
  { open: 0x04, label: null },
  ...then,
  ...(otherwise === undefined ? [] : [{ other: true } as const, ...otherwise]),
  { close: true },
];
const br = (label: string): Code => [{ branch: 0x0c, label }];
const brIf = (label: string, cond: Code): Code => [...cond, { branch: 0x0d, label }];
/** `while (cond) body`, with `label` to break out of and `label + ":next"` to continue. */
const whileLoop = (label: string, cond: Code, ...body: Code[]): Code =>
  block(label, loop(`${label}:next`, brIf(label, eqz(cond)), ...body, br(`${label}:next`)));

/** Resolves labels to depths; the result is the instruction bytes. */
function assemble(code: Code): number[] {
  const bytes: number[] = [];
  const labels: (string | null)[] = [];
  for (const item of code) {
    if (typeof item === "number") bytes.push(item);
    else if ("open" in item) {
      bytes.push(item.open, 0x40);
      labels.push(item.label);
    } else if ("close" in item) {
      bytes.push(0x0b);
      labels.pop();
    } else if ("other" in item) {
      bytes.push(0x05);
    } else {
      const at = labels.lastIndexOf(item.label);
      if (at < 0) throw new Error(`kernel-wasm: no enclosing label "${item.label}"`);
      bytes.push(item.branch, ...uleb(labels.length - 1 - at));
    }
  }
  if (labels.length !== 0) throw new Error("kernel-wasm: unbalanced blocks");
  return bytes;
}

// ---- the kernel ----

/** Appends node X to active queue 1 (the caller knows it is not queued). */
const activate = (X: LocalName): Code =>
  seq(
    if_(ne(get("qLast1"), c(-1)), st(get("qLast1"), N.NEXT, get(X)), set("qFirst1", get(X))),
    set("qLast1", get(X)),
    st(get(X), N.NEXT, get(X)),
  );

/** Makes X an orphan at the rear of the adoption ring. */
const orphanRear = (X: LocalName): Code =>
  seq(
    st(get(X), N.PARENT, c(ORPHAN)),
    st(get("ringTail"), 0, get(X)),
    inc("ringTail", 4),
    if_(eq(get("ringTail"), get("ringEnd")), set("ringTail", get("ringBase"))),
  );

/** Makes X an orphan on the augmentation's stack. */
const orphanFront = (X: LocalName): Code =>
  seq(st(get(X), N.PARENT, c(ORPHAN)), st(get("stackTop"), 0, get(X)), inc("stackTop", 4));

/** Lists X as changed (when tracking and not yet listed). */
const listChanged = (X: LocalName): Code =>
  if_(
    and(get("track"), eqz(ld8(get(X), N.LISTED))),
    seq(
      st8(get(X), N.LISTED, c(1)),
      st(
        add(get("changedBase"), shl(get("changedCount"), c(2))),
        0,
        shrS(sub(get(X), get("nb")), c(5)),
      ),
      inc("changedCount", 1),
    ),
  );

const forArcs = (node: LocalName, label: string, ...body: Code[]): Code =>
  seq(
    set("A", ld(get(node), N.FIRST)),
    whileLoop(label, ne(get("A"), c(-1)), ...body, set("A", ld(get("A"), R.NEXT))),
  );

const sister = (arc: Code): Code => xor(arc, c(SISTER));

const prologue = seq(
  set("nb", ld(c(0), H.NODE_BASE)),
  set("end", ld(c(0), H.NODE_END)),
  set("ringBase", ld(c(0), H.RING_BASE)),
  set("ringEnd", ld(c(0), H.RING_END)),
  set("stackBase", ld(c(0), H.STACK_BASE)),
  set("changedBase", ld(c(0), H.CHANGED_BASE)),
  set("reuse", ne(ld(c(0), H.REUSE), c(0))),
  set("track", ne(ld(c(0), H.TRACK), c(0))),
  // The flags of the previous changed list.
  set("count", ld(c(0), H.CHANGED_COUNT)),
  set("k", c(0)),
  whileLoop(
    "clear",
    ltS(get("k"), get("count")),
    st8(
      add(get("nb"), shl(ld(add(get("changedBase"), shl(get("k"), c(2))), 0), c(5))),
      N.LISTED,
      c(0),
    ),
    inc("k", 1),
  ),
  set("changedCount", c(0)),
  set("flow", fld(c(0), H.FLOW)),
  set("qFirst0", c(-1)),
  set("qFirst1", c(-1)),
  set("qLast1", c(-1)),
  set("ringHead", get("ringBase")),
  set("ringTail", get("ringBase")),
  set("stackTop", get("stackBase")),
);

const freshInit = seq(
  set("time", c(0)),
  set("P", get("nb")),
  whileLoop(
    "init",
    ltS(get("P"), get("end")),
    st(get("P"), N.NEXT, c(-1)),
    st(get("P"), N.TS, c(0)),
    st8(get("P"), N.MARKED, c(0)),
    set("c", fld(get("P"), N.TR)),
    if_(
      fne(get("c"), fc(0)),
      seq(
        st8(get("P"), N.SINK, xor(fgt(get("c"), fc(0)), c(1))),
        st(get("P"), N.PARENT, c(TERMINAL)),
        st(get("P"), N.DIST, c(1)),
        activate("P"),
      ),
      st(get("P"), N.PARENT, c(NONE)),
    ),
    inc("P", 32),
  ),
);

const reuseInit = seq(
  set("time", ld(c(0), H.TIME)),
  if_(
    geS(get("time"), c(TIME_LIMIT)),
    seq(
      set("P", get("nb")),
      whileLoop("renumber", ltS(get("P"), get("end")), st(get("P"), N.TS, c(0)), inc("P", 32)),
      set("time", c(0)),
    ),
  ),
  inc("time", 1),
  set("queue", ld(c(0), H.MARKED_FIRST)),
  whileLoop(
    "marked",
    ne(get("queue"), c(-1)),
    set("P", get("queue")),
    set("queue", ld(get("P"), N.NEXT)),
    if_(eq(get("queue"), get("P")), set("queue", c(-1))),
    st8(get("P"), N.MARKED, c(0)),
    st(get("P"), N.NEXT, c(-1)),
    activate("P"),
    set("c", fld(get("P"), N.TR)),
    block(
      "node",
      if_(
        feq(get("c"), fc(0)),
        seq(
          if_(ne(ld(get("P"), N.PARENT), c(NONE)), orphanRear("P")),
          br("node"), // continue with the next marked node
        ),
      ),
      set("toSink", xor(fgt(get("c"), fc(0)), c(1))),
      if_(
        or(eq(ld(get("P"), N.PARENT), c(NONE)), ne(ld8(get("P"), N.SINK), get("toSink"))),
        seq(
          st8(get("P"), N.SINK, get("toSink")),
          forArcs(
            "P",
            "rootArcs",
            set("Q", ld(get("A"), R.HEAD)),
            if_(
              eqz(ld8(get("Q"), N.MARKED)),
              seq(
                if_(eq(ld(get("Q"), N.PARENT), sister(get("A"))), orphanRear("Q")),
                if_(
                  and(
                    and(
                      ne(ld(get("Q"), N.PARENT), c(NONE)),
                      ne(ld8(get("Q"), N.SINK), get("toSink")),
                    ),
                    and(
                      fgt(
                        fld(select(get("A"), sister(get("A")), eqz(get("toSink"))), R.CAP),
                        fc(0),
                      ),
                      eq(ld(get("Q"), N.NEXT), c(-1)),
                    ),
                  ),
                  activate("Q"),
                ),
              ),
            ),
          ),
          listChanged("P"),
        ),
      ),
      st(get("P"), N.PARENT, c(TERMINAL)),
      st(get("P"), N.TS, get("time")),
      st(get("P"), N.DIST, c(1)),
    ),
  ),
);

/** Processes one orphan O (Kolmogorov's process_source_orphan / process_sink_orphan). */
const adoptOne = seq(
  set("side", ld8(get("O"), N.SINK)),
  // The residual arc into O's tree: Q→O (the sister) in the source tree, O→Q in the sink tree.
  set("flip", shl(xor(get("side"), c(1)), c(4))),
  set("bestArc", c(-1)),
  set("bestD", c(INFINITE_D)),
  forArcs(
    "O",
    "candidates",
    if_(
      fne(fld(xor(get("A"), get("flip")), R.CAP), fc(0)),
      seq(
        set("Q", ld(get("A"), R.HEAD)),
        if_(
          and(eq(ld8(get("Q"), N.SINK), get("side")), ne(ld(get("Q"), N.PARENT), c(NONE))),
          seq(
            // Where does Q's tree path lead: to the terminal (d = its length) or an orphan?
            set("d", c(0)),
            block(
              "walked",
              loop(
                "walk",
                if_(
                  eq(ld(get("Q"), N.TS), get("time")),
                  seq(set("d", add(get("d"), ld(get("Q"), N.DIST))), br("walked")),
                ),
                set("parent", ld(get("Q"), N.PARENT)),
                inc("d", 1),
                if_(
                  eq(get("parent"), c(TERMINAL)),
                  seq(st(get("Q"), N.TS, get("time")), st(get("Q"), N.DIST, c(1)), br("walked")),
                ),
                if_(eq(get("parent"), c(ORPHAN)), seq(set("d", c(INFINITE_D)), br("walked"))),
                set("Q", ld(get("parent"), R.HEAD)),
                br("walk"),
              ),
            ),
            if_(
              ltS(get("d"), c(INFINITE_D)),
              seq(
                if_(
                  ltS(get("d"), get("bestD")),
                  seq(set("bestArc", get("A")), set("bestD", get("d"))),
                ),
                // Stamp the path so that later walks stop early.
                set("Q", ld(get("A"), R.HEAD)),
                whileLoop(
                  "stamp",
                  ne(ld(get("Q"), N.TS), get("time")),
                  st(get("Q"), N.TS, get("time")),
                  st(get("Q"), N.DIST, get("d")),
                  inc("d", -1),
                  set("Q", ld(ld(get("Q"), N.PARENT), R.HEAD)),
                ),
              ),
            ),
          ),
        ),
      ),
    ),
  ),
  st(get("O"), N.PARENT, get("bestArc")),
  if_(
    ne(get("bestArc"), c(-1)),
    seq(st(get("O"), N.TS, get("time")), st(get("O"), N.DIST, add(get("bestD"), c(1)))),
    seq(
      // No parent: O becomes free; its tree neighbours may grow into it again, its children
      // are orphans.
      listChanged("O"),
      forArcs(
        "O",
        "neighbours",
        set("Q", ld(get("A"), R.HEAD)),
        set("parent", ld(get("Q"), N.PARENT)),
        if_(
          and(eq(ld8(get("Q"), N.SINK), get("side")), ne(get("parent"), c(NONE))),
          seq(
            if_(
              and(
                fne(fld(xor(get("A"), get("flip")), R.CAP), fc(0)),
                eq(ld(get("Q"), N.NEXT), c(-1)),
              ),
              activate("Q"),
            ),
            // (Nested: `and` evaluates both sides, and a sentinel is no address.)
            if_(
              geS(get("parent"), c(0)),
              if_(eq(ld(get("parent"), R.HEAD), get("O")), orphanRear("Q")),
            ),
          ),
        ),
      ),
    ),
  ),
);

const adoption = whileLoop(
  "adopt",
  or(ne(get("stackTop"), get("stackBase")), ne(get("ringHead"), get("ringTail"))),
  if_(
    ne(get("ringHead"), get("ringTail")),
    seq(
      set("O", ld(get("ringHead"), 0)),
      inc("ringHead", 4),
      if_(eq(get("ringHead"), get("ringEnd")), set("ringHead", get("ringBase"))),
    ),
    seq(inc("stackTop", -4), set("O", ld(get("stackTop"), 0))),
  ),
  adoptOne,
);

/** Picks the next active node into P, or leaves the main loop ("done") when there is none. */
const nextActive = seq(
  set("P", get("current")),
  if_(
    ne(get("P"), c(-1)),
    seq(st(get("P"), N.NEXT, c(-1)), if_(eq(ld(get("P"), N.PARENT), c(NONE)), set("P", c(-1)))),
  ),
  if_(
    eq(get("P"), c(-1)),
    block(
      "found",
      loop(
        "pop",
        set("P", get("qFirst0")),
        if_(
          eq(get("P"), c(-1)),
          seq(
            set("P", get("qFirst1")),
            set("qFirst0", get("qFirst1")),
            set("qFirst1", c(-1)),
            set("qLast1", c(-1)),
            brIf("done", eq(get("P"), c(-1))),
          ),
        ),
        set("after", ld(get("P"), N.NEXT)),
        set("qFirst0", select(c(-1), get("after"), eq(get("after"), get("P")))),
        st(get("P"), N.NEXT, c(-1)),
        brIf("found", ne(ld(get("P"), N.PARENT), c(NONE))),
        br("pop"),
      ),
    ),
  ),
);

/** Growth from P in its tree (`sink` 0: source tree, 1: sink tree); sets "middle". */
const grow = (sink: 0 | 1): Code => {
  const residual = sink === 0 ? get("A") : sister(get("A"));
  return forArcs(
    "P",
    sink === 0 ? "growSource" : "growSink",
    if_(
      fne(fld(residual, R.CAP), fc(0)),
      seq(
        set("Q", ld(get("A"), R.HEAD)),
        if_(
          eq(ld(get("Q"), N.PARENT), c(NONE)),
          seq(
            st8(get("Q"), N.SINK, c(sink)),
            st(get("Q"), N.PARENT, sister(get("A"))),
            st(get("Q"), N.TS, get("tsP")),
            st(get("Q"), N.DIST, add(get("distP"), c(1))),
            if_(eq(ld(get("Q"), N.NEXT), c(-1)), activate("Q")),
            listChanged("Q"),
          ),
          if_(
            ne(ld8(get("Q"), N.SINK), c(sink)),
            seq(
              set("middle", sink === 0 ? get("A") : sister(get("A"))),
              br(sink === 0 ? "growSource" : "growSink"),
            ),
            if_(
              and(leS(ld(get("Q"), N.TS), get("tsP")), gtS(ld(get("Q"), N.DIST), get("distP"))),
              seq(
                st(get("Q"), N.PARENT, sister(get("A"))),
                st(get("Q"), N.TS, get("tsP")),
                st(get("Q"), N.DIST, add(get("distP"), c(1))),
              ),
            ),
          ),
        ),
      ),
    ),
  );
};

/** bottleneck = min(bottleneck, c) */
const lower = if_(fgt(get("bottleneck"), get("c")), set("bottleneck", get("c")));

/** Walks K up its tree to the terminal child; `body` runs per parent arc A. */
const walkUp = (label: string, ...body: Code[]): Code =>
  block(
    label,
    loop(
      `${label}:next`,
      set("A", ld(get("K"), N.PARENT)),
      brIf(label, eq(get("A"), c(TERMINAL))),
      ...body,
      set("K", ld(get("A"), R.HEAD)),
      br(`${label}:next`),
    ),
  );

const augment = seq(
  set("tail", ld(sister(get("middle")), R.HEAD)),
  set("head", ld(get("middle"), R.HEAD)),
  set("bottleneck", fld(get("middle"), R.CAP)),
  set("K", get("tail")),
  walkUp("minSource", set("c", fld(sister(get("A")), R.CAP)), lower),
  set("c", fld(get("K"), N.TR)),
  lower,
  set("K", get("head")),
  walkUp("minSink", set("c", fld(get("A"), R.CAP)), lower),
  set("c", fneg(fld(get("K"), N.TR))),
  lower,
  fst(sister(get("middle")), R.CAP, fadd(fld(sister(get("middle")), R.CAP), get("bottleneck"))),
  fst(get("middle"), R.CAP, fsub(fld(get("middle"), R.CAP), get("bottleneck"))),
  set("K", get("tail")),
  walkUp(
    "pushSource",
    fst(get("A"), R.CAP, fadd(fld(get("A"), R.CAP), get("bottleneck"))),
    set("c", fsub(fld(sister(get("A")), R.CAP), get("bottleneck"))),
    fst(sister(get("A")), R.CAP, get("c")),
    if_(feq(get("c"), fc(0)), orphanFront("K")),
  ),
  set("c", fsub(fld(get("K"), N.TR), get("bottleneck"))),
  fst(get("K"), N.TR, get("c")),
  if_(feq(get("c"), fc(0)), orphanFront("K")),
  set("K", get("head")),
  walkUp(
    "pushSink",
    fst(sister(get("A")), R.CAP, fadd(fld(sister(get("A")), R.CAP), get("bottleneck"))),
    set("c", fsub(fld(get("A"), R.CAP), get("bottleneck"))),
    fst(get("A"), R.CAP, get("c")),
    if_(feq(get("c"), fc(0)), orphanFront("K")),
  ),
  set("c", fadd(fld(get("K"), N.TR), get("bottleneck"))),
  fst(get("K"), N.TR, get("c")),
  if_(feq(get("c"), fc(0)), orphanFront("K")),
  set("flow", fadd(get("flow"), get("bottleneck"))),
);

const mainLoop = seq(
  set("current", c(-1)),
  block(
    "done",
    loop(
      "main",
      adoption,
      nextActive,
      set("middle", c(-1)),
      set("tsP", ld(get("P"), N.TS)),
      set("distP", ld(get("P"), N.DIST)),
      if_(eqz(ld8(get("P"), N.SINK)), grow(0), grow(1)),
      inc("time", 1),
      if_(eq(get("middle"), c(-1)), seq(set("current", c(-1)), br("main"))),
      st(get("P"), N.NEXT, get("P")), // the current node counts as queued while it is processed
      set("current", get("P")),
      augment,
      br("main"),
    ),
  ),
);

const epilogue = seq(
  st(c(0), H.TIME, get("time")),
  st(c(0), H.CHANGED_COUNT, get("changedCount")),
  fst(c(0), H.FLOW, get("flow")),
);

/** The staging area's columns: chunk entries each of i32, i32, f64, f64. */
const column = (k: 0 | 1 | 2 | 3, size: 4 | 8): Code =>
  add(
    k === 0 ? get("stage") : add(get("stage"), shl(get("chunk"), c([0, 2, 3, 4][k]!))),
    shl(get("k"), c(size === 4 ? 2 : 3)),
  );

/**
 * Links ARG0 staged edges (chunk size ARG4, staging at ARG1) from the arc at ARG2 on, among ARG3
 * nodes: `MaxflowGraph.addEdges`. Checks each edge first; at a bad one it stops and leaves its
 * index in RESULT (the caller unlinks what was linked and reports), else RESULT is -1.
 */
const addEdgesBody = seq(
  set("count", ld(c(0), H.ARG0)),
  set("stage", ld(c(0), H.ARG1)),
  set("A", ld(c(0), H.ARG2)),
  set("n", ld(c(0), H.ARG3)),
  set("chunk", ld(c(0), H.ARG4)),
  set("nb", ld(c(0), H.NODE_BASE)),
  st(c(0), H.RESULT, c(-1)),
  set("k", c(0)),
  whileLoop(
    "edges",
    ltS(get("k"), get("count")),
    set("u", ld(column(0, 4), 0)),
    set("v", ld(column(1, 4), 0)),
    set("s", fld(column(2, 8), 0)),
    set("r", fld(column(3, 8), 0)),
    if_(
      eqz(
        and(
          and(and(ltU(get("u"), get("n")), ltU(get("v"), get("n"))), ne(get("u"), get("v"))),
          and(
            and(fge(get("s"), fc(0)), flt(get("s"), fc(Number.POSITIVE_INFINITY))),
            and(fge(get("r"), fc(0)), flt(get("r"), fc(Number.POSITIVE_INFINITY))),
          ),
        ),
      ),
      seq(st(c(0), H.RESULT, get("k")), br("edges")),
    ),
    set("U", add(get("nb"), shl(get("u"), c(5)))),
    set("V", add(get("nb"), shl(get("v"), c(5)))),
    fst(get("A"), R.CAP, get("s")),
    fst(get("A"), SISTER + R.CAP, get("r")),
    st(get("A"), R.HEAD, get("V")),
    st(get("A"), R.NEXT, ld(get("U"), N.FIRST)),
    st(get("U"), N.FIRST, get("A")),
    st(get("A"), SISTER + R.HEAD, get("U")),
    st(get("A"), SISTER + R.NEXT, ld(get("V"), N.FIRST)),
    st(get("V"), N.FIRST, add(get("A"), c(SISTER))),
    inc("A", 2 * SISTER),
    inc("k", 1),
  ),
);

/**
 * Adds ARG0 staged terminal capacities (nodes in column 0, source and sink capacities in columns
 * 2 and 3; chunk size ARG4, staging at ARG1; terminal totals at ARG2) to the nodes and the flow
 * in the header: `MaxflowGraph.addTerminalWeightsMany` after its checks.
 */
const addTerminalsBody = seq(
  set("count", ld(c(0), H.ARG0)),
  set("stage", ld(c(0), H.ARG1)),
  set("termBase", ld(c(0), H.ARG2)),
  set("chunk", ld(c(0), H.ARG4)),
  set("nb", ld(c(0), H.NODE_BASE)),
  set("flow", fld(c(0), H.FLOW)),
  set("k", c(0)),
  whileLoop(
    "terminals",
    ltS(get("k"), get("count")),
    set("u", ld(column(0, 4), 0)),
    set("s", fld(column(2, 8), 0)),
    set("t", fld(column(3, 8), 0)),
    set("T", add(get("termBase"), shl(get("u"), c(4)))),
    fst(get("T"), 0, fadd(fld(get("T"), 0), get("s"))),
    fst(get("T"), 8, fadd(fld(get("T"), 8), get("t"))),
    set("P", add(get("nb"), shl(get("u"), c(5)))),
    set("c", fld(get("P"), N.TR)),
    if_(
      fgt(get("c"), fc(0)),
      set("s", fadd(get("s"), get("c"))),
      set("t", fsub(get("t"), get("c"))),
    ),
    set("flow", fadd(get("flow"), fmin(get("s"), get("t")))),
    fst(get("P"), N.TR, fadd(fsub(get("s"), get("t")), fc(0))),
    inc("k", 1),
  ),
  fst(c(0), H.FLOW, get("flow")),
);

/** The module's bytes: `env.memory` imported; `maxflow`, `addEdges`, `addTerminals` exported. */
export function maxflowKernelBytes(): Uint8Array {
  const locals = [[I32_LOCALS.length, I32] as const, [F64_LOCALS.length, F64] as const];
  return assembleModule(
    (
      [
        ["maxflow", seq(prologue, if_(get("reuse"), reuseInit, freshInit), mainLoop, epilogue)],
        ["addEdges", addEdgesBody],
        ["addTerminals", addTerminalsBody],
      ] as const
    ).map(([name, code]) => ({ name, params: [], locals, code: assemble(code) })),
  );
}

/** The compiled kernel, or null where WebAssembly is not available (compiled once). */
export const maxflowKernelModule = compiledOnce(maxflowKernelBytes);
