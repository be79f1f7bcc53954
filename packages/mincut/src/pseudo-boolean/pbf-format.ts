import { PbfFormatError } from "./errors.js";
import { PseudoBooleanFunction } from "./function.js";

/**
 * A `.pbf.txt` file (the `seq_*` max-flow fixtures): the pseudo-Boolean objective F that the
 * min-cut slave **maximises**,
 *
 *     F(z) = Σ_v θ_v·z_v + Σ_pairs w·z_a·z_b + Σ_terms w·z_{v1}·…·z_{vk},
 *
 * read as the energy E = −F that every reduction of this package minimises. So min E is the
 * fixture's `slave_min_energy` and −min E its `slave_max_objective`.
 */
export interface PbfInstance {
  /** E = −F over the N variables of the file. */
  readonly energy: PseudoBooleanFunction;
  /** N: variables, one θ line each. */
  readonly numVariables: number;
  /** P: pair lines. */
  readonly numPairs: number;
  /** H: higher-order term lines. */
  readonly numTerms: number;
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads the `.pbf.txt` format: a line `N P H`; N lines with one number θ_v (v = 0 … N−1); P lines
 * `a b w` (the term w·z_a·z_b, a ≠ b); H lines `w k v_1 … v_k` (the term w·z_{v1}·…·z_{vk} over k ≥ 1
 * distinct variables). Fields are separated by spaces or tabs; blank lines may only end the file.
 * Malformed input raises a {@link PbfFormatError} naming `file:line` and what was expected.
 */
export function parsePbf(text: string, file = "<pbf>"): PbfInstance {
  const lines = text.split("\n");
  let last = lines.length;
  while (last > 0 && lines[last - 1]!.trim() === "") last--;
  let lineNo = 0;

  const fail = (line: number, detail: string): never => {
    throw new PbfFormatError(file, line, detail);
  };
  const next = (expected: string): string[] => {
    if (lineNo >= last) {
      fail(
        lineNo + 1,
        `the file ends here, but ${expected} was expected (the header announces more lines)`,
      );
    }
    const raw = lines[lineNo++]!.replace(/\r$/, "").trim();
    if (raw === "") fail(lineNo, `empty line; expected ${expected}`);
    return raw.split(/[ \t]+/);
  };
  const integer = (field: string, what: string): number => {
    const value = INTEGER.test(field) ? Number(field) : Number.NaN;
    if (!Number.isSafeInteger(value)) fail(lineNo, `${what} must be an integer, got "${field}"`);
    return value;
  };
  const number = (field: string, what: string): number => {
    const value = DECIMAL.test(field) ? Number(field) : Number.NaN;
    if (!Number.isFinite(value)) fail(lineNo, `${what} must be a finite number, got "${field}"`);
    return value;
  };
  const variable = (field: string, what: string, n: number): number => {
    const v = integer(field, what);
    if (v < 0 || v >= n) {
      fail(lineNo, `${what} ${v} is not a variable (N = ${n}: 0 … ${n - 1})`);
    }
    return v;
  };
  const fieldCount = (fields: string[], count: number, shape: string): void => {
    if (fields.length !== count) {
      fail(lineNo, `expected ${count} fields (${shape}), got ${fields.length}`);
    }
  };

  const header = next("the header `N P H`");
  fieldCount(header, 3, "N P H");
  const counts = header.map((field, r) => {
    const what = ["N (variables)", "P (pairs)", "H (terms)"][r]!;
    const value = integer(field, what);
    if (value < 0) fail(lineNo, `${what} must be ≥ 0, got ${value}`);
    return value;
  });
  const [n, numPairs, numTerms] = counts as [number, number, number];

  const energy = new PseudoBooleanFunction(n);
  for (let v = 0; v < n; v++) {
    const fields = next(`θ_${v} (a linear coefficient)`);
    fieldCount(fields, 1, `θ_${v}`);
    energy.addLinear(v, -number(fields[0]!, `θ_${v}`));
  }
  for (let p = 0; p < numPairs; p++) {
    const fields = next(`pair ${p + 1} of ${numPairs} (\`a b w\`)`);
    fieldCount(fields, 3, "a b w");
    const a = variable(fields[0]!, "a", n);
    const b = variable(fields[1]!, "b", n);
    if (a === b) fail(lineNo, `a pair needs two different variables, got ${a} twice`);
    energy.addQuadratic(a, b, -number(fields[2]!, "w"));
  }
  for (let h = 0; h < numTerms; h++) {
    const fields = next(`term ${h + 1} of ${numTerms} (\`w k v_1 … v_k\`)`);
    if (fields.length < 2)
      fail(lineNo, `expected \`w k v_1 … v_k\`, got ${fields.length} field(s)`);
    const w = number(fields[0]!, "w");
    const k = integer(fields[1]!, "k");
    if (k < 1) fail(lineNo, `k must be ≥ 1, got ${k}`);
    fieldCount(fields, k + 2, `w k and k = ${k} variables`);
    const vars: number[] = [];
    for (let r = 0; r < k; r++) {
      const v = variable(fields[r + 2]!, `v_${r + 1}`, n);
      const seen = vars.indexOf(v);
      if (seen >= 0) {
        fail(
          lineNo,
          `variable ${v} appears twice (v_${seen + 1} and v_${r + 1}); a term's variables must be distinct`,
        );
      }
      vars.push(v);
    }
    energy.addMonomial(vars, -w);
  }
  if (lineNo < last) {
    fail(
      lineNo + 1,
      `unexpected line after the ${n} θ, ${numPairs} pair and ${numTerms} term lines the header announces`,
    );
  }
  return { energy, numVariables: n, numPairs, numTerms };
}
