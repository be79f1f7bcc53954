import type { BinaryFactor, BinaryFactorBinding } from "@lagrange/core/dual-decomposition";
import {
  andOutFactor,
  atMostOneFactor,
  budgetFactor,
  denseFactor,
  orFactor,
  orOutFactor,
  pairFactor,
  xorFactor,
} from "@lagrange/core/dual-decomposition";
import {
  buildFactor,
  countType,
  type FactorGraphFile,
  type FileBinaryVariable,
  type FileMultiVariable,
  fieldsOf,
  LineReader,
  parseInteger,
  parseReal,
  readCountLine,
} from "./factor-graph-file.js";
import {
  arborescenceFactor,
  grandparentHeadAutomatonFactor,
  headAutomatonFactor,
  siblingScoreCount,
} from "./parsing-factors.js";
import {
  countedTreeFactor,
  generalTreeFactor,
  sequenceFactor,
  sequenceScoreOffsets,
  treeOrder,
  treeScoreOffsets,
} from "./structured-factors.js";

/** Factor types ad3_multi reads that have no Lagrange factor yet. */
const NOT_YET = new Set(["SEQUENCE_COMPRESSOR"]);

const LOGIC: Readonly<Record<string, (size: number, negated?: Uint8Array) => BinaryFactor>> = {
  XOR: xorFactor,
  ATMOSTONE: atMostOneFactor,
  OR: orFactor,
  OROUT: orOutFactor,
  ANDOUT: andOutFactor,
};

const SUPPORTED = [
  ...Object.keys(LOGIC),
  "BUDGET",
  "PAIR",
  "DENSE",
  "SEQUENCE",
  "SEQUENCE_BUDGET",
  "GENERAL_TREE",
  "GENERAL_TREE_COUNTS",
  "XOROUT",
  "ARBORESCENCE",
  "HEAD_AUTOMATON",
  "GRANDPARENT_HEAD_AUTOMATON",
];

/**
 * Reads AD3's `.fg` format as ad3_multi (`--format=ad3`) does: the number of binary variables,
 * the number of factors, one log-potential per variable, one line per factor
 * (`TYPE NUM_LINKS ID… [type's fields]`, 1-based ids, a negative id negating the variable in a
 * logic factor). Everything after `#` on a line is a comment, but every line counts, as in
 * ad3_multi, so a blank line where a number is due is an error rather than a silent zero. The
 * line after the last factor is skipped whatever it holds, as ad3_multi skips it; one graph is
 * read, so anything but blank lines after that is an error.
 *
 * Factor types: XOR, ATMOSTONE, OR, OROUT, ANDOUT, BUDGET (`… budget`), PAIR (`PAIR 2 a b score`,
 * score added when both are 1), DENSE (`… M n_1…n_M scores`, the linked variables grouped into M
 * multi-variables, scores indexed by joint state, last variable fastest), SEQUENCE
 * (`… L n_1…n_L scores`: start→first, each transition, last→end, previous state outer),
 * SEQUENCE_BUDGET (`… L budget n_1…n_L scores`, at most `budget` positions in state 0) and
 * GENERAL_TREE (`… L n_1…n_L parent_1…parent_L scores`), GENERAL_TREE_COUNTS (the same, its
 * last L + 1 links the one-hot count of nodes in state 0), XOROUT (Σ inputs = output),
 * ARBORESCENCE (`… n h_1 m_1 … h_K m_K`: arc variables, node 0 the root), HEAD_AUTOMATON
 * (`… sibling scores`, (m, s) for 0 ≤ m < s ≤ K+1, m outer) and GRANDPARENT_HEAD_AUTOMATON
 * (`… G grandparent scores sibling scores`, the first G links the grandparent arcs). A negative id
 * on a factor that is not a logic one is an error (ad3_multi would drop the sign silently).
 *
 * @throws FactorGraphFormatError (`bad-input`) naming `source:line` and what was expected.
 */
export function parseAd3FactorGraph(text: string, source: string): FactorGraphFile {
  // Annotated so that its `never` methods narrow.
  const reader: LineReader = new LineReader(text, source);
  const numVariables = readCountLine(reader, "the number of variables");
  const numFactors = readCountLine(reader, "the number of factors");
  // Each variable takes a line, so a count beyond the file fails in the loop below; sized to
  // the file, a huge count cannot make the allocation itself fail first.
  const unary = new Float64Array(Math.min(numVariables, reader.remaining));
  for (let i = 0; i < numVariables; ++i) {
    const fields = fieldsOf(reader.read(`the log-potential of variable ${i + 1}`));
    const what = `the log-potential of variable ${i + 1} of ${numVariables}`;
    if (fields.length !== 1) reader.fail(`expected ${what} alone on the line`);
    unary[i] = parseReal(reader, fields[0], what);
  }

  const factors: BinaryFactorBinding[] = [];
  const pool = new ArrayPool();
  const multiVariables: FileMultiVariable[] = [];
  const oneHot: Int32Array[] = [];
  const inGroup = new Uint8Array(numVariables);
  // linkedBy[v] = f + 1 while reading factor f's links, to catch a variable linked twice.
  const linkedBy = new Int32Array(numVariables);
  const factorsByType: Record<string, number> = {};
  // Positions of a structured factor are one-hot; the first group to claim a variable keeps it.
  const addGroup = (group: Int32Array): void => {
    for (const v of group) if (inGroup[v]) return;
    for (const v of group) inGroup[v] = 1;
    oneHot.push(group);
  };

  for (let f = 0; f < numFactors; ++f) {
    const fields = fieldsOf(reader.read(`factor ${f + 1} of ${numFactors}`));
    const type = fields[0];
    if (type === undefined) {
      reader.fail(
        `expected factor ${f + 1} of ${numFactors} (TYPE NUM_LINKS ID…), found a blank line`,
      );
    }
    if (NOT_YET.has(type)) {
      reader.fail(
        `factor type ${type} is read by ad3_multi but not supported here yet (supported: ${SUPPORTED.join(", ")})`,
      );
    }
    if (!SUPPORTED.includes(type)) {
      reader.fail(`unknown factor type "${type}"; expected one of ${SUPPORTED.join(", ")}`);
    }
    const numLinks = parseInteger(reader, fields[1], `the number of variables ${type} links`);
    // A head automaton with no modifiers still scores its empty sequence (AD3's parsing files
    // have them); any other factor links something.
    const least = type === "HEAD_AUTOMATON" ? 0 : 1;
    if (numLinks < least) {
      reader.fail(`expected ${type} to link at least ${least} variable(s), found ${numLinks}`);
    }
    // Views on shared blocks: a file of small factors (mln_large.fg has 80 292) would otherwise
    // hold one buffer per factor, which the garbage collector pays for.
    const variables = pool.ints(numLinks);
    const negated = pool.bytes(numLinks);
    let anyNegated = false;
    for (let j = 0; j < numLinks; ++j) {
      const what = `variable id ${j + 1} of ${numLinks} of ${type}`;
      const id = parseInteger(reader, fields[2 + j], what);
      const k = Math.abs(id);
      if (k < 1 || k > numVariables) {
        reader.fail(
          `expected ${what} in 1..${numVariables} (negative to negate), found ${fields[2 + j]}`,
        );
      }
      if (linkedBy[k - 1] === f + 1) reader.fail(`${type} links variable ${k} twice`);
      linkedBy[k - 1] = f + 1;
      variables[j] = k - 1;
      if (id < 0) {
        negated[j] = 1;
        anyNegated = true;
      }
    }
    const rest = fields.slice(2 + numLinks);
    let at = 0;
    const integer = (what: string): number => parseInteger(reader, rest[at++], what);
    const real = (what: string): number => parseReal(reader, rest[at++], what);
    const noNegation = (): void => {
      if (anyNegated) {
        reader.fail(`${type} takes no negated variables (ad3_multi would ignore the sign)`);
      }
    };

    let factor: BinaryFactor;
    const logic = LOGIC[type];
    if (logic) {
      factor = buildFactor(reader, () => logic(numLinks, anyNegated ? negated : undefined));
    } else if (type === "XOROUT") {
      // AD3's XOR-with-output is a XOR whose last variable's sign is flipped: Σ inputs = output.
      const flipped = negated.slice();
      flipped[numLinks - 1] = 1 - flipped[numLinks - 1]!;
      factor = buildFactor(reader, () => xorFactor(numLinks, flipped));
    } else if (type === "ARBORESCENCE") {
      noNegation();
      const length = integer("the sentence length of ARBORESCENCE");
      // Every word needs an arc into it, so a longer sentence could never be spanned.
      if (length < 1 || length > numLinks + 1) {
        reader.fail(`expected a sentence length in 1..${numLinks + 1} (arcs + 1), found ${length}`);
      }
      const heads = new Int32Array(numLinks);
      const modifiers = new Int32Array(numLinks);
      for (let r = 0; r < numLinks; ++r) {
        heads[r] = integer(`the head of arc ${r + 1} of ${numLinks}`);
        modifiers[r] = integer(`the modifier of arc ${r + 1} of ${numLinks}`);
      }
      factor = buildFactor(reader, () => arborescenceFactor(length, heads, modifiers));
    } else if (type === "HEAD_AUTOMATON") {
      noNegation();
      const count = siblingScoreCount(numLinks + 1);
      const siblings = readReals(reader, rest, at, count, type);
      at += count;
      factor = buildFactor(reader, () => headAutomatonFactor(numLinks + 1, siblings));
    } else if (type === "GRANDPARENT_HEAD_AUTOMATON") {
      noNegation();
      const g = integer("the number of grandparents of GRANDPARENT_HEAD_AUTOMATON");
      if (g < 1 || g > numLinks) {
        reader.fail(`expected the number of grandparents in 1..${numLinks}, found ${g}`);
      }
      const length = numLinks + 1 - g;
      const grand = readReals(reader, rest, at, g * (length - 1), type);
      at += g * (length - 1);
      const count = siblingScoreCount(length);
      const siblings = readReals(reader, rest, at, count, type);
      at += count;
      factor = buildFactor(reader, () =>
        grandparentHeadAutomatonFactor(length, g, grand, siblings),
      );
    } else if (type === "BUDGET") {
      const budget = integer("the budget of BUDGET");
      factor = buildFactor(reader, () =>
        budgetFactor(numLinks, budget, anyNegated ? negated : undefined),
      );
    } else if (type === "PAIR") {
      if (numLinks !== 2) reader.fail(`expected PAIR to link 2 variables, found ${numLinks}`);
      noNegation();
      const score = real("the log-potential of PAIR");
      factor = buildFactor(reader, () => pairFactor(score));
    } else if (type === "DENSE") {
      noNegation();
      const m = integer("the number of multi-variables of DENSE");
      if (m < 1 || m > numLinks) {
        reader.fail(`expected 1..${numLinks} multi-variables in DENSE, found ${m}`);
      }
      const cardinalities = new Int32Array(m);
      let total = 0;
      let configurations = 1;
      for (let k = 0; k < m; ++k) {
        const n = integer(`the number of states of multi-variable ${k + 1} of ${m}`);
        if (n < 1) reader.fail(`expected a positive number of states, found ${n}`);
        cardinalities[k] = n;
        total += n;
        configurations *= n;
      }
      if (total !== numLinks) {
        reader.fail(`the states of DENSE add up to ${total}, expected the ${numLinks} it links`);
      }
      const scores = readReals(reader, rest, at, configurations, "DENSE");
      at += configurations;
      let offset = 0;
      for (let k = 0; k < m; ++k) {
        const states = variables.slice(offset, offset + cardinalities[k]!);
        offset += cardinalities[k]!;
        multiVariables.push({ fileVariable: multiVariables.length, states });
        addGroup(states);
      }
      factor = buildFactor(reader, () => denseFactor(cardinalities, scores));
    } else if (type === "SEQUENCE" || type === "SEQUENCE_BUDGET") {
      noNegation();
      const length = integer(`the length of ${type}`);
      if (length < 1) reader.fail(`expected a positive length of ${type}, found ${length}`);
      let budget: number | undefined;
      if (type === "SEQUENCE_BUDGET") {
        budget = integer("the budget of SEQUENCE_BUDGET");
        if (budget < 0) reader.fail(`expected a budget ≥ 0, found ${budget}`);
      }
      const numStates = readStates(reader, rest, at, length, numLinks, type);
      at += length;
      const count = sequenceScoreOffsets(numStates)[length + 1]!;
      const scores = readReals(reader, rest, at, count, type);
      at += count;
      addPositionGroups(variables, numStates, addGroup);
      factor = buildFactor(reader, () => sequenceFactor(numStates, scores, budget));
    } else {
      // GENERAL_TREE, GENERAL_TREE_COUNTS (whose last length + 1 links are the count variables)
      noNegation();
      const counted = type === "GENERAL_TREE_COUNTS";
      const length = integer(`the number of nodes of ${type}`);
      if (length < 1) reader.fail(`expected a positive number of nodes, found ${length}`);
      const stateLinks = counted ? numLinks - length - 1 : numLinks;
      const numStates = readStates(reader, rest, at, length, stateLinks, type);
      at += length;
      const parents = new Int32Array(length);
      for (let k = 0; k < length; ++k) parents[k] = integer(`the parent of node ${k}`);
      if (treeOrder(parents) === undefined) {
        reader.fail(
          "expected the parents to form a tree: node 0 the root (parent −1), the others with parents in range and no cycle",
        );
      }
      const count = treeScoreOffsets(parents, numStates)[length]!;
      const scores = readReals(reader, rest, at, count, type);
      at += count;
      addPositionGroups(variables, numStates, addGroup);
      if (counted) addGroup(variables.slice(stateLinks));
      factor = buildFactor(reader, () =>
        counted
          ? countedTreeFactor(parents, numStates, scores)
          : generalTreeFactor(parents, numStates, scores),
      );
    }
    if (at < rest.length) {
      reader.fail(
        `expected the end of the ${type} line after ${2 + numLinks + at} fields, found ${fields.length}`,
      );
    }
    if (factor.size !== numLinks) {
      reader.fail(`${type} built a factor over ${factor.size} variables, expected ${numLinks}`);
    }
    factors.push({ factor, variables });
    countType(factorsByType, type);
  }

  // ad3_multi drops the line after the factors, whatever it holds (AD3's SRL files end with a
  // word there), and would read what follows as another graph; one graph is read here.
  if (!reader.atEnd) reader.read("a separator line");
  if (reader.readNonBlank() !== undefined) {
    reader.fail(
      `expected the end of the file after ${numFactors} factors (only one graph per file is read)`,
    );
  }

  const binaryVariables: FileBinaryVariable[] = [];
  for (let i = 0; i < numVariables; ++i) binaryVariables.push({ fileVariable: i + 1, state: -1 });
  return {
    format: "ad3",
    source,
    problem: {
      variables: numVariables,
      unary,
      factors,
      ...(oneHot.length > 0 ? { oneHot } : {}),
    },
    binaryVariables,
    multiVariables,
    counts: { variables: numVariables, factors: numFactors, factorsByType },
  };
}

function readReals(
  reader: LineReader,
  rest: readonly string[],
  at: number,
  count: number,
  type: string,
): Float64Array {
  if (rest.length - at < count) {
    reader.fail(
      `expected ${count} log-potentials for ${type}, found ${Math.max(rest.length - at, 0)}`,
    );
  }
  const out = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    out[i] = parseReal(reader, rest[at + i], `log-potential ${i + 1} of ${count} of ${type}`);
  }
  return out;
}

function readStates(
  reader: LineReader,
  rest: readonly string[],
  at: number,
  length: number,
  stateLinks: number,
  type: string,
): Int32Array {
  if (rest.length - at < length) {
    reader.fail(
      `expected ${length} state counts for ${type}, found ${Math.max(rest.length - at, 0)}`,
    );
  }
  const numStates = new Int32Array(length);
  let total = 0;
  for (let k = 0; k < length; ++k) {
    const n = parseInteger(
      reader,
      rest[at + k],
      `the number of states of position ${k} of ${type}`,
    );
    if (n < 1) reader.fail(`expected a positive number of states at position ${k}, found ${n}`);
    numStates[k] = n;
    total += n;
  }
  if (total !== stateLinks) {
    reader.fail(
      `the states of ${type} add up to ${total}, expected the ${stateLinks} state variables it links`,
    );
  }
  return numStates;
}

function addPositionGroups(
  variables: Int32Array,
  numStates: Int32Array,
  addGroup: (group: Int32Array) => void,
): void {
  let offset = 0;
  for (const n of numStates) {
    addGroup(variables.slice(offset, offset + n));
    offset += n;
  }
}

/** Hands out zeroed views on large blocks, allocating a new block when one runs out. */
class ArrayPool {
  private intBlock = new Int32Array(0);
  private intAt = 0;
  private byteBlock = new Uint8Array(0);
  private byteAt = 0;

  ints(n: number): Int32Array {
    if (this.intAt + n > this.intBlock.length) {
      this.intBlock = new Int32Array(Math.max(n, 1 << 16));
      this.intAt = 0;
    }
    this.intAt += n;
    return this.intBlock.subarray(this.intAt - n, this.intAt);
  }

  bytes(n: number): Uint8Array {
    if (this.byteAt + n > this.byteBlock.length) {
      this.byteBlock = new Uint8Array(Math.max(n, 1 << 16));
      this.byteAt = 0;
    }
    this.byteAt += n;
    return this.byteBlock.subarray(this.byteAt - n, this.byteAt);
  }
}
