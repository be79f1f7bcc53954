import { LagrangeError } from "@lagrange/core";
import { MaxflowGraph } from "./graph.js";

/**
 * One max-flow instance as flat arrays, in the order of its file: edge e adds u→v with capacity
 * `edgeCap[e]` and v→u with `edgeRevCap[e]`; terminal line k adds source→`terminalNode[k]` with
 * `terminalSource[k]` and `terminalNode[k]`→sink with `terminalSink[k]`.
 */
export interface MaxflowInstance {
  readonly n: number;
  readonly m: number;
  readonly edgeFrom: Int32Array;
  readonly edgeTo: Int32Array;
  readonly edgeCap: Float64Array;
  readonly edgeRevCap: Float64Array;
  readonly terminalNode: Int32Array;
  readonly terminalSource: Float64Array;
  readonly terminalSink: Float64Array;
}

/** One round of terminal-capacity changes: node k's capacities become the listed values. */
export interface MaxflowUpdateRound {
  readonly node: Int32Array;
  readonly capSource: Float64Array;
  readonly capSink: Float64Array;
}

/** The two canonical minimum cuts of a `.cut.txt` file, as source-side flags (1 = `S`). */
export interface MaxflowCutFile {
  /** Line 1: the smallest source side (reachable from the source in the residual graph). */
  readonly smallest: Uint8Array;
  /** Line 2: the largest source side (the sink cannot be reached from it). */
  readonly largest: Uint8Array;
}

/** A malformed graph, cut or update file; the message starts with `file:line:`. */
export class MaxflowFormatError extends LagrangeError {
  override readonly name = "MaxflowFormatError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super("bad-input", `${file}:${line}: ${detail}`);
  }
}

/** Splits text into lines (a final newline ends the last line; `\r\n` is accepted). */
class Lines {
  private pos = 0;
  line = 0;
  constructor(
    private readonly text: string,
    readonly file: string,
  ) {}

  /** The next line, or undefined at the end of the text. */
  next(): string | undefined {
    const text = this.text;
    if (this.pos >= text.length) return undefined;
    let end = text.indexOf("\n", this.pos);
    if (end === -1) end = text.length;
    let line = text.slice(this.pos, end);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    this.pos = end + 1;
    this.line++;
    return line;
  }

  fail(detail: string, line = this.line): never {
    throw new MaxflowFormatError(this.file, line, detail);
  }
}

const UNSIGNED = /^(0|[1-9][0-9]*)$/;
const CAPACITY = /^[0-9]+(\.[0-9]+)?$/;

function fields(lines: Lines, text: string, count: number, what: string): string[] {
  const parts = text.split(" ");
  if (parts.length !== count || parts.some((p) => p === "")) {
    lines.fail(
      `expected ${what} (${count} fields separated by single spaces), got ${JSON.stringify(clip(text))}`,
    );
  }
  return parts;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function index(lines: Lines, text: string, name: string, limit: number): number {
  if (!UNSIGNED.test(text)) lines.fail(`${name}: expected an integer ≥ 0, got "${clip(text)}"`);
  const x = Number(text);
  if (x >= limit) lines.fail(`${name}: ${text} is not a node (the graph has n = ${limit})`);
  return x;
}

function count(lines: Lines, text: string, name: string): number {
  if (!UNSIGNED.test(text) || !Number.isSafeInteger(Number(text))) {
    lines.fail(`${name}: expected an integer ≥ 0, got "${clip(text)}"`);
  }
  return Number(text);
}

function capacity(lines: Lines, text: string, name: string): number {
  if (!CAPACITY.test(text)) {
    lines.fail(`${name}: expected a non-negative decimal number, got "${clip(text)}"`);
  }
  const x = Number(text);
  if (!Number.isFinite(x)) lines.fail(`${name}: ${clip(text)} is too large`);
  return x;
}

/**
 * Reads the fixture graph format (`n m`, then m lines `u v cap rev_cap`, then lines
 * `t i cap_source cap_sink`; see `shared/fixtures/maxflow/README.md`). Every problem is a
 * {@link MaxflowFormatError} naming `file:line`. Repeated `t` lines for a node add up (the format
 * promises at most one per node, in increasing order; neither is needed here).
 */
export function parseMaxflowGraph(text: string, file = "<graph>"): MaxflowInstance {
  const lines: Lines = new Lines(text, file);
  const header = lines.next();
  if (header === undefined) lines.fail("empty file: expected a header line `n m`", 1);
  const [nText, mText] = fields(lines, header, 2, "the header `n m`");
  const n = count(lines, nText!, "n");
  const m = count(lines, mText!, "m");
  if (n < 1) lines.fail("n: a graph needs at least one node");
  if (n > 0x7fffffff || m > 0x3fffffff) lines.fail("the graph is too large");
  // An edge line takes at least 8 characters, so a header that promises more lines than the text
  // can hold fails at the end of the text, never in allocating them.
  const room = Math.min(m, Math.floor(text.length / 8) + 1);
  const edgeFrom = new Int32Array(room);
  const edgeTo = new Int32Array(room);
  const edgeCap = new Float64Array(room);
  const edgeRevCap = new Float64Array(room);
  for (let e = 0; e < m; e++) {
    const line = lines.next();
    if (line === undefined) {
      lines.fail(`the file ends after ${e} of m = ${m} edge lines`, lines.line + 1);
    }
    if (line.startsWith("t ")) {
      lines.fail(`a \`t\` line after only ${e} of m = ${m} edge lines`);
    }
    const [u, v, c, r] = fields(lines, line, 4, "an edge line `u v cap rev_cap`");
    edgeFrom[e] = index(lines, u!, "u", n);
    edgeTo[e] = index(lines, v!, "v", n);
    if (edgeFrom[e] === edgeTo[e]) lines.fail(`an edge needs two distinct nodes, got u = v = ${u}`);
    edgeCap[e] = capacity(lines, c!, "cap");
    edgeRevCap[e] = capacity(lines, r!, "rev_cap");
  }
  const tNode: number[] = [];
  const tSource: number[] = [];
  const tSink: number[] = [];
  for (;;) {
    const line = lines.next();
    if (line === undefined) break;
    if (line === "" && lines.next() === undefined)
      lines.fail("an empty line at the end of the file");
    const parts = fields(lines, line, 4, "a terminal line `t i cap_source cap_sink`");
    if (parts[0] !== "t") {
      lines.fail(
        `expected a terminal line \`t i cap_source cap_sink\` (all m = ${m} edge lines are read), got ${JSON.stringify(clip(line))}`,
      );
    }
    tNode.push(index(lines, parts[1]!, "i", n));
    tSource.push(capacity(lines, parts[2]!, "cap_source"));
    tSink.push(capacity(lines, parts[3]!, "cap_sink"));
  }
  return {
    n,
    m,
    edgeFrom,
    edgeTo,
    edgeCap,
    edgeRevCap,
    terminalNode: Int32Array.from(tNode),
    terminalSource: Float64Array.from(tSource),
    terminalSink: Float64Array.from(tSink),
  };
}

/**
 * Reads a `.cut.txt` file: two lines of exactly n characters `S` / `T` (smallest source side,
 * then largest).
 */
export function parseMaxflowCut(text: string, n: number, file = "<cut>"): MaxflowCutFile {
  const lines: Lines = new Lines(text, file);
  const read = (which: string): Uint8Array => {
    const line = lines.next();
    if (line === undefined) {
      lines.fail(`expected the ${which} source side (a line of ${n} S/T)`, lines.line + 1);
    }
    if (line.length !== n) {
      lines.fail(`expected ${n} characters S or T, got ${line.length}`);
    }
    const side = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const ch = line.charCodeAt(i);
      if (ch === 83) side[i] = 1;
      else if (ch !== 84) {
        lines.fail(`column ${i + 1}: expected S or T, got ${JSON.stringify(line[i])}`);
      }
    }
    return side;
  };
  const smallest = read("smallest");
  const largest = read("largest");
  const rest = lines.next();
  if (rest !== undefined) lines.fail("expected exactly two lines");
  return { smallest, largest };
}

/**
 * Reads an `.updates.txt` file: `R`, then per round `r k` and k lines `t i cap_source cap_sink`
 * (the node's terminal capacities are replaced by the listed values).
 */
export function parseMaxflowUpdates(
  text: string,
  n: number,
  file = "<updates>",
): MaxflowUpdateRound[] {
  const lines: Lines = new Lines(text, file);
  const header = lines.next();
  if (header === undefined) lines.fail("empty file: expected the number of rounds", 1);
  const [rText] = fields(lines, header, 1, "the number of rounds `R`");
  const roundCount = count(lines, rText!, "R");
  const rounds: MaxflowUpdateRound[] = [];
  for (let r = 1; r <= roundCount; r++) {
    const head = lines.next();
    if (head === undefined) {
      lines.fail(`the file ends after ${r - 1} of R = ${roundCount} rounds`, lines.line + 1);
    }
    const [label, kText] = fields(lines, head, 2, `the header of round ${r}, \`${r} k\``);
    if (label !== String(r)) lines.fail(`expected the header of round ${r}, got round "${label}"`);
    const k = count(lines, kText!, "k");
    const room = Math.min(k, Math.floor(text.length / 8) + 1); // as for edge lines
    const node = new Int32Array(room);
    const capSource = new Float64Array(room);
    const capSink = new Float64Array(room);
    for (let q = 0; q < k; q++) {
      const line = lines.next();
      if (line === undefined) {
        lines.fail(`round ${r} ends after ${q} of k = ${k} lines`, lines.line + 1);
      }
      const parts = fields(lines, line, 4, "an update line `t i cap_source cap_sink`");
      if (parts[0] !== "t") lines.fail(`expected an update line starting with "t"`);
      node[q] = index(lines, parts[1]!, "i", n);
      capSource[q] = capacity(lines, parts[2]!, "cap_source");
      capSink[q] = capacity(lines, parts[3]!, "cap_sink");
    }
    rounds.push({ node, capSource, capSink });
  }
  const rest = lines.next();
  if (rest !== undefined && !(rest === "" && lines.next() === undefined)) {
    lines.fail(`unexpected text after the last of R = ${roundCount} rounds`);
  }
  return rounds;
}

/**
 * Builds an instance into a graph, in file order: `addNodes(n)`, then `addEdges` (one edge per
 * edge line) and `addTerminalWeightsMany` (one entry per terminal line). Reuses `graph` (after
 * `reset()`) when given.
 */
export function buildMaxflowGraph(instance: MaxflowInstance, graph?: MaxflowGraph): MaxflowGraph {
  const g = graph ?? new MaxflowGraph({ nodes: instance.n, edges: instance.m });
  if (graph !== undefined) g.reset();
  g.addNodes(instance.n);
  g.addEdges(instance.edgeFrom, instance.edgeTo, instance.edgeCap, instance.edgeRevCap);
  g.addTerminalWeightsMany(instance.terminalNode, instance.terminalSource, instance.terminalSink);
  return g;
}

/** The per-node terminal capacities of an instance (repeated terminal lines summed). */
export function terminalCapacities(instance: MaxflowInstance): {
  source: Float64Array;
  sink: Float64Array;
} {
  const source = new Float64Array(instance.n);
  const sink = new Float64Array(instance.n);
  for (let k = 0; k < instance.terminalNode.length; k++) {
    source[instance.terminalNode[k]!]! += instance.terminalSource[k]!;
    sink[instance.terminalNode[k]!]! += instance.terminalSink[k]!;
  }
  return { source, sink };
}

/**
 * The capacity of the cut whose source side is `sourceSide` (1 = source side), summed directly
 * from the instance: edges from the source side to the sink side, source→i for sink-side i and
 * i→sink for source-side i. `terminals` overrides the instance's terminal capacities (after
 * update rounds).
 */
export function cutCapacity(
  instance: MaxflowInstance,
  sourceSide: Uint8Array,
  terminals: { source: Float64Array; sink: Float64Array } = terminalCapacities(instance),
): number {
  let total = 0;
  const { edgeFrom, edgeTo, edgeCap, edgeRevCap } = instance;
  for (let e = 0; e < instance.m; e++) {
    const su = sourceSide[edgeFrom[e]!]!;
    const sv = sourceSide[edgeTo[e]!]!;
    if (su === 1 && sv === 0) total += edgeCap[e]!;
    else if (su === 0 && sv === 1) total += edgeRevCap[e]!;
  }
  for (let i = 0; i < instance.n; i++) {
    total += sourceSide[i] === 1 ? terminals.sink[i]! : terminals.source[i]!;
  }
  return total;
}
