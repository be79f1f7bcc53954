import type { BinaryFactorBinding } from "@lagrange/core/dual-decomposition";
import { denseFactor, xorFactor } from "@lagrange/core/dual-decomposition";
import {
  buildFactor,
  type FactorGraphFile,
  FactorGraphFormatError,
  type FileBinaryVariable,
  type FileMultiVariable,
  fieldsOf,
  LineReader,
  parseInteger,
  parseReal,
  readCountLine,
} from "./factor-graph-file.js";

/** ad3_multi's log of a zero potential (AD3's LOG_ZERO): large and negative, not −∞. */
export const UAI_LOG_ZERO = -1000;

/** More states than this (one binary variable each) is refused rather than allocated. */
const MAX_STATES = 1 << 26;

/**
 * Reads a Markov network in the UAI (PIC 2011) format as ad3_multi (`--format=uai`) builds it:
 * each variable of cardinality n becomes n binary state variables (variable 0's states first),
 * each table over two or more variables a dense factor over their states (the table indexed by
 * joint state, last variable fastest, as written), each single-variable table the unaries of its
 * states, and every variable gets a XOR (one-of) factor over its states, after the dense factors —
 * ad3_multi adds one to every variable, since it never records which ones a dense factor covers.
 * The file holds potentials: a score is their log, a zero potential scoring {@link UAI_LOG_ZERO}.
 *
 * Layout as ad3_multi reads it: the header `MARKOV`, then one line each for the number of
 * variables, the cardinalities, the number of factors, and each factor's scope; then the tables,
 * each a count followed by that many values over any number of lines. Unlike ad3_multi, values may
 * follow the count on its line (the UAI format allows it; ad3_multi would drop them), and two
 * single-variable tables over one variable add up (ad3_multi keeps the last) — no file in AD3's
 * data has either. Reads one network: anything but blank lines after it is an error.
 *
 * @throws FactorGraphFormatError (`bad-input`) naming `source:line` and what was expected.
 */
export function parseUaiFactorGraph(text: string, source: string): FactorGraphFile {
  // Annotated so that its `never` methods narrow.
  const reader: LineReader = new LineReader(text, source);
  const header = reader.readNonBlank();
  if (header === undefined)
    reader.failAtEnd("expected the header MARKOV, found the end of the file");
  if (header.trim() !== "MARKOV") {
    reader.fail(
      `expected the header MARKOV (ad3_multi reads Markov networks), found "${header.trim()}"`,
    );
  }

  const numVariables = readCountLine(reader, "the number of variables");
  const cardinalityFields = fieldsOf(reader.read("the cardinalities of the variables"));
  if (cardinalityFields.length !== numVariables) {
    reader.fail(
      `expected ${numVariables} cardinalities on one line, found ${cardinalityFields.length}`,
    );
  }
  const cardinalities = new Int32Array(numVariables);
  const offsets = new Int32Array(numVariables + 1);
  // Sizes are checked before they are stored: an Int32Array would wrap 2^32 + 2 states to 2 and
  // solve a different graph. Every partial sum stays ≤ MAX_STATES, exact in a double.
  let numBinary = 0;
  for (let v = 0; v < numVariables; ++v) {
    const n = parseInteger(reader, cardinalityFields[v], `the cardinality of variable ${v}`);
    if (n < 1) reader.fail(`expected the cardinality of variable ${v} to be ≥ 1, found ${n}`);
    if (n > MAX_STATES - numBinary) {
      reader.fail(
        `expected at most ${MAX_STATES} states in all, found more (variable ${v} has ${n}, after ${numBinary} before it)`,
      );
    }
    numBinary += n;
    cardinalities[v] = n;
    offsets[v + 1] = numBinary;
  }

  const numFactors = readCountLine(reader, "the number of factors");
  const scopes: Int32Array[] = [];
  const scopeLines: number[] = [];
  for (let f = 0; f < numFactors; ++f) {
    const fields = fieldsOf(reader.read(`the scope of factor ${f} of ${numFactors}`));
    const arity = parseInteger(reader, fields[0], `the number of variables of factor ${f}`);
    if (arity < 1)
      reader.fail(`expected factor ${f} to have at least one variable, found ${arity}`);
    if (fields.length !== arity + 1) {
      reader.fail(
        `expected ${arity} variables in the scope of factor ${f}, found ${fields.length - 1}`,
      );
    }
    const scope = new Int32Array(arity);
    for (let j = 0; j < arity; ++j) {
      const v = parseInteger(reader, fields[1 + j], `variable ${j + 1} of factor ${f}`);
      if (v < 0 || v >= numVariables) {
        reader.fail(
          `expected variable ${j + 1} of factor ${f} in 0..${numVariables - 1}, found ${v}`,
        );
      }
      if (scope.subarray(0, j).includes(v)) reader.fail(`factor ${f} has variable ${v} twice`);
      scope[j] = v;
    }
    scopes.push(scope);
    scopeLines.push(reader.lineNumber);
  }

  const unary = new Float64Array(numBinary);
  const factors: BinaryFactorBinding[] = [];
  let unaryTables = 0;
  for (let f = 0; f < numFactors; ++f) {
    const scope = scopes[f]!;
    const expected = tableSize(scope, cardinalities);
    if (expected === undefined) {
      throw new FactorGraphFormatError(
        source,
        scopeLines[f]!,
        `factor ${f} has ${exactTableSize(scope, cardinalities)} entries, more than the ${MAX_STATES} this reader allocates`,
      );
    }
    const first = reader.readNonBlank();
    if (first === undefined) {
      reader.failAtEnd(
        `expected the table of factor ${f} (declared on line ${scopeLines[f]}), found the end of the file`,
      );
    }
    const fields = fieldsOf(first);
    const count = parseInteger(reader, fields[0], `the number of entries of factor ${f}`);
    if (count !== expected) {
      reader.fail(
        `expected ${expected} entries in the table of factor ${f} (its scope on line ${scopeLines[f]}), found ${count}`,
      );
    }
    const table = new Float64Array(count);
    let filled = 0;
    let pending = fields.slice(1);
    for (;;) {
      if (filled + pending.length > count) {
        reader.fail(`the table of factor ${f} has more than its ${count} entries`);
      }
      for (const field of pending) table[filled++] = logPotential(reader, field, f);
      if (filled === count) break;
      const line = reader.readNonBlank();
      if (line === undefined) {
        reader.failAtEnd(
          `expected ${count - filled} more entries of factor ${f}, found the end of the file`,
        );
      }
      pending = fieldsOf(line);
    }
    if (scope.length === 1) {
      const start = offsets[scope[0]!]!;
      for (let s = 0; s < count; ++s) unary[start + s]! += table[s]!;
      ++unaryTables;
    } else {
      const cards = new Int32Array(scope.length);
      const variables = new Int32Array(sumStates(scope, cardinalities));
      let at = 0;
      scope.forEach((v, j) => {
        cards[j] = cardinalities[v]!;
        for (let s = offsets[v]!; s < offsets[v + 1]!; ++s) variables[at++] = s;
      });
      factors.push({ factor: buildFactor(reader, () => denseFactor(cards, table)), variables });
    }
  }
  if (reader.readNonBlank() !== undefined) {
    reader.fail(
      `expected the end of the file after ${numFactors} tables (only one network per file is read)`,
    );
  }

  const binaryVariables: FileBinaryVariable[] = [];
  const multiVariables: FileMultiVariable[] = [];
  const oneHot: Int32Array[] = [];
  for (let v = 0; v < numVariables; ++v) {
    const states = new Int32Array(cardinalities[v]!);
    for (let s = 0; s < states.length; ++s) {
      states[s] = offsets[v]! + s;
      binaryVariables.push({ fileVariable: v, state: s });
    }
    multiVariables.push({ fileVariable: v, states });
    oneHot.push(states);
    factors.push({
      factor: buildFactor(reader, () => xorFactor(states.length)),
      variables: states,
    });
  }
  return {
    format: "uai",
    source,
    problem: { variables: numBinary, unary, factors, oneHot },
    binaryVariables,
    multiVariables,
    counts: {
      variables: numVariables,
      factors: numFactors,
      factorsByType: {
        UNARY: unaryTables,
        DENSE: numFactors - unaryTables,
        XOR: numVariables,
      },
    },
  };
}

/** The entries of a table over `scope`, undefined past MAX_STATES (checked at every factor). */
function tableSize(scope: Int32Array, cardinalities: Int32Array): number | undefined {
  let size = 1;
  for (const v of scope) {
    size *= cardinalities[v]!;
    if (size > MAX_STATES) return undefined;
  }
  return size;
}

/** The exact number of entries, for the message (a product of many cardinalities outgrows a double). */
function exactTableSize(scope: Int32Array, cardinalities: Int32Array): string {
  let size = 1n;
  for (const v of scope) size *= BigInt(cardinalities[v]!);
  return size.toString();
}

function sumStates(scope: Int32Array, cardinalities: Int32Array): number {
  let total = 0;
  for (const v of scope) total += cardinalities[v]!;
  return total;
}

function logPotential(reader: LineReader, field: string, factor: number): number {
  const value = parseReal(reader, field, `a potential of factor ${factor}`);
  if (!(value >= 0)) {
    reader.fail(`expected a finite potential ≥ 0 in factor ${factor}, found ${field}`);
  }
  return value === 0 ? UAI_LOG_ZERO : Math.log(value);
}
