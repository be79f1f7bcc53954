import { LagrangeError } from "@lagrange/core";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TrainOptions } from "../define/train-values.js";
import { TRAIN_FLAG_SCOPES, type TrainPath } from "../define/train-values.js";
import { buildProgram } from "../main.js";
import {
  CRF_ONLY_OPTIONS,
  checkFlagScopes,
  checkLearnerOptions,
  L2S_ONLY_OPTIONS,
  trainPath,
} from "./train-check.js";

/*
 * Which train flags each path reads is one table (define/train-values.ts): every declared option
 * is in it, its values are the declared choices, and a flag given where the table says it is not
 * read is refused or warned about, naming the flag and the path.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

const train = buildProgram(STANDARD_DECODERS).commands.find((c) => c.name() === "train")!;
const declared = train.options.map((o) => o.long!);
const choices = (flag: string): readonly string[] | undefined =>
  train.options.find((o) => o.long === flag)?.argChoices;

/** The flag that sets each value dimension of a path, whose declared choices bound its values. */
const VALUE_FLAGS = {
  learner: "--learner",
  algorithm: "--algorithm",
  objective: "--objective",
  order: "--order",
  model: "--model",
  groups: "--groups",
  task: "--task",
} as const;

function warnings(run: () => void): string {
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    run();
    return stderr.mock.calls.map(([text]) => String(text)).join("");
  } finally {
    stderr.mockRestore();
  }
}

/** Options for a path (what trainPath reads back). */
function optionsOf(path: TrainPath): TrainOptions {
  return {
    data: "d.conll",
    out: "m.lgm",
    learner: path.learner,
    algorithm: path.algorithm,
    objective: path.objective,
    order: path.order,
    model: path.model,
    ...(path.groups === "none" ? {} : { groups: path.groups }),
    ...(path.task === "none" ? {} : { task: path.task }),
    ...(path.twoStage ? { twoStage: true } : {}),
    preset: path.taskPreset ? "ner-en" : "chunking",
  } as unknown as TrainOptions;
}

const paths: fc.Arbitrary<TrainPath> = fc.record({
  learner: fc.constantFrom(...choices("--learner")!),
  algorithm: fc.constantFrom(...choices("--algorithm")!),
  objective: fc.constantFrom(...choices("--objective")!),
  order: fc.constantFrom(...choices("--order")!),
  model: fc.constantFrom(...choices("--model")!),
  groups: fc.constantFrom("none", ...choices("--groups")!),
  task: fc.constantFrom("none", ...choices("--task")!),
  twoStage: fc.boolean(),
  dev: fc.boolean(),
  taskPreset: fc.boolean(),
});

describe("the train flag table", () => {
  it("holds every option train declares, and nothing else", () => {
    expect(declared.length).toBeGreaterThan(50);
    expect(Object.keys(TRAIN_FLAG_SCOPES).sort()).toEqual([...declared].sort());
  });

  it("names only the declared choices of the flags its conditions read", () => {
    for (const [flag, scope] of Object.entries(TRAIN_FLAG_SCOPES)) {
      for (const condition of scope.where) {
        for (const [dimension, values] of Object.entries(condition)) {
          if (values === true) continue;
          const known = choices(VALUE_FLAGS[dimension as keyof typeof VALUE_FLAGS]);
          expect(known, `${flag}: ${dimension}`).toBeDefined();
          for (const value of values as readonly string[]) {
            expect(known, `${flag}: ${dimension} ${value}`).toContain(value);
          }
        }
      }
    }
  });

  it("is where the learners' own option lists come from", () => {
    expect(CRF_ONLY_OPTIONS).toEqual(expect.arrayContaining(["--c1", "--template", "--order"]));
    expect(L2S_ONLY_OPTIONS).toEqual(expect.arrayContaining(["--task", "--oracle"]));
    expect(CRF_ONLY_OPTIONS.filter((f) => L2S_ONLY_OPTIONS.includes(f))).toEqual([]);
    // Features of CoNLL columns are the CRF's: an L2S tagger builds its own.
    expect(() =>
      checkLearnerOptions("l2s", "pos", new Set(["--task", "--template", "--clusters"])),
    ).toThrow(/^--template, --clusters: options of the CRF learner/);
  });
});

describe("flags the chosen path does not read", () => {
  it("are refused or warned about, each by name with the path, and only those", () => {
    const flags = Object.keys(TRAIN_FLAG_SCOPES);
    fc.assert(
      fc.property(paths, fc.subarray(flags, { maxLength: 6 }), (path, picked) => {
        // The boolean dimensions are flags of their own: given exactly when the path has them.
        const given = new Set([
          ...picked.filter((f) => f !== "--dev" && f !== "--two-stage"),
          ...(path.dev ? ["--dev"] : []),
          ...(path.twoStage ? ["--two-stage"] : []),
        ]);
        const options = optionsOf(path);
        expect(trainPath(options, given)).toEqual(path);
        const unread = [...given].filter(
          (flag) => TRAIN_FLAG_SCOPES[flag]!.where.length > 0 && !readBy(flag, path),
        );
        const refused = unread.filter((f) => TRAIN_FLAG_SCOPES[f]!.elsewhere !== "warn");
        let error: unknown;
        const said = warnings(() => {
          try {
            checkFlagScopes(options, given);
          } catch (caught) {
            error = caught;
          }
        });
        for (const flag of unread) {
          const text = refused.includes(flag) ? (error as Error).message : said;
          expect(text).toMatch(new RegExp(`(^|; |warning: )${flag} (applies to|needs) `));
        }
        if (refused.length === 0) expect(error).toBeUndefined();
        else {
          expect(error).toBeInstanceOf(LagrangeError);
          expect((error as LagrangeError).code).toBe("usage");
        }
        if (unread.length === refused.length) expect(said).toBe("");
      }),
      { numRuns: 400 },
    );
  });

  it("say where the flag is read and what the path is instead", () => {
    const crf: TrainPath = {
      learner: "crf",
      algorithm: "ap",
      objective: "crf",
      order: "1",
      model: "chain",
      groups: "none",
      task: "none",
      twoStage: false,
      dev: false,
      taskPreset: false,
    };
    const check = (path: TrainPath, ...given: string[]) =>
      warnings(() => checkFlagScopes(optionsOf(path), new Set(given)));
    const said = check(crf, "--c1", "--threads", "--patience", "--bcrf-iterations", "--folds");
    expect(said).toContain("--c1 applies to --algorithm lbfgs/owlqn only; ignored with ap");
    expect(said).toMatch(/--threads applies to .* only; ignored with ap/);
    expect(said).toContain("--patience needs --dev; ignored without --dev");
    expect(said).toContain(
      "--bcrf-iterations applies to --objective bcrf/mean-field only; ignored with --objective crf",
    );
    expect(said).toContain(
      "--folds applies to --model general or --two-stage only; ignored with a chain CRF without --two-stage",
    );
    expect(check({ ...crf, algorithm: "lbfgs" }, "--trigrams")).toContain(
      "--trigrams applies to --order 2 only; ignored with --order 1",
    );
    expect(check({ ...crf, model: "general", groups: "documents" }, "--max-group")).toContain(
      "--max-group applies to --model general with --groups tweets only; ignored with --groups documents",
    );
    expect(() =>
      checkFlagScopes(
        optionsOf({ ...crf, learner: "l2s", task: "pos" }),
        new Set(["--task", "--oracle", "--unlabelled"]),
      ),
    ).toThrow(
      /^--oracle applies to --task parser only, so it does nothing with --task pos; --unlabelled applies to --task parser only, so it does nothing with --task pos: drop them$/,
    );
  });
});

function readBy(flag: string, path: TrainPath): boolean {
  return TRAIN_FLAG_SCOPES[flag]!.where.some((condition) =>
    Object.entries(condition).every(([d, wanted]) => {
      const value = path[d as keyof TrainPath];
      return wanted === true ? value === true : (wanted as string[]).includes(value as string);
    }),
  );
}
