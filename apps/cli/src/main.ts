import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { constraintsLearnCommand, PENALTY_ALGORITHMS } from "./commands/constraints.ts";
import { demoCommand } from "./commands/demo.ts";
import { evalCommand } from "./commands/eval.ts";
import { infoCommand } from "./commands/info.ts";
import { DECODERS, type TagStats, tagCommand } from "./commands/tag.ts";
import { trainCommand } from "./commands/train.ts";
import { CliError, ExitCode } from "./exit-codes.ts";
import { note } from "./progress.ts";

function buildProgram(): Command {
  const program = new Command("lagrange")
    .description("Structured prediction with global constraints: train, tag, evaluate.")
    .showHelpAfterError()
    .exitOverride();

  program
    .command("eval")
    .description(
      "Evaluate predictions (gold = second-to-last column, prediction = last): a drop-in conlleval.pl",
    )
    .argument("<pred>", "prediction file in CoNLL columns, or - for standard input")
    .option("--json", "print the figures as JSON (percent, like conlleval)")
    .option("-r, --raw", "conlleval -r: tags carry no B-/I- prefix")
    .option("-d, --delimiter <char>", "conlleval -d: the column delimiter (default a space)")
    .option("-o, --outside <tag>", "conlleval -o: the outside tag, with --raw (default O)")
    .option("-l, --latex", "conlleval -l: a LaTeX table")
    .addOption(
      new Option("--hierarchical", "evaluate hierarchical labels per field (segment)").conflicts(
        "flat",
      ),
    )
    .option("--flat", "force conlleval's flat chunk evaluation")
    .action(async (pred: string, opts: Record<string, unknown>) => {
      const hierarchical =
        opts.hierarchical === true ? true : opts.flat === true ? false : undefined;
      process.stdout.write(
        await evalCommand(pred, {
          ...(opts.json === true ? { json: true } : {}),
          ...(opts.raw === true ? { raw: true } : {}),
          ...(typeof opts.delimiter === "string" ? { delimiter: opts.delimiter } : {}),
          ...(typeof opts.outside === "string" ? { outside: opts.outside } : {}),
          ...(opts.latex === true ? { latex: true } : {}),
          ...(hierarchical === undefined ? {} : { hierarchical }),
        }),
      );
    });

  program
    .command("train")
    .description("Train a linear-chain CRF and write a model file")
    .requiredOption(
      "--data <spec>",
      "training data: a registry name[:split] (default split train) or a file path",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline (default from the extension)",
    )
    .requiredOption("--preset <name>", "feature preset: chunking, ner, citation, pos")
    .addOption(
      new Option("--algorithm <name>", "trainer")
        .choices(["lbfgs", "owlqn", "ap", "sgd"])
        .default("lbfgs"),
    )
    .option("--c1 <x>", "L1 coefficient (owlqn)", parseNumber)
    .option("--c2 <x>", "L2 coefficient c2·‖w‖², CRFsuite's convention", parseNumber)
    .option("--max-iterations <n>", "iterations (L-BFGS) or epochs (perceptron, SGD)", parseInteger)
    .option("--threads <n>", "worker threads for the L-BFGS objective", parseInteger)
    .option("--min-freq <n>", "keep attributes seen at least n times", parseInteger)
    .option(
      "--dev <spec>",
      "held-out data evaluated during training (registry name[:split] or path)",
    )
    .option("--patience <n>", "early stopping: evaluations without dev improvement", parseInteger)
    .option(
      "--constrained-training",
      "train under the scheme's transition mask (likelihood over valid labellings only)",
    )
    .option(
      "--scheme <name>",
      "label scheme for decoding and evaluation: IOB2, IOB1, IOE1, IOE2, BIOES, hierarchical-BIO, none",
    )
    .addOption(
      new Option("--malformed <policy>", "malformed UMass lines")
        .choices(["error", "repair", "skip"])
        .default("skip"),
    )
    .requiredOption("--out <model>", "model file to write (atomically)")
    .action(async (opts: Record<string, unknown>) => {
      process.stdout.write(
        await trainCommand(opts as unknown as Parameters<typeof trainCommand>[0], abortOnSignal()),
      );
    });

  program
    .command("tag")
    .description(
      "Label data with a model; writes the input's columns plus the predicted label. With --decoder soft-dd or hard-dd, decodes under learned global constraints (dual decomposition) and prints mean iterations, % certified and decode time to stderr",
    )
    .requiredOption("--model <file>", "model file")
    .requiredOption(
      "--data <spec>",
      "data to tag: a registry name[:split] (default split dev) or a file path",
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .addOption(
      new Option(
        "--decoder <name>",
        "viterbi (BIO-valid), soft-dd (learned penalties, anzaroot2014 Alg. 2) or hard-dd (every active constraint hard, Alg. 1)",
      )
        .choices([...DECODERS])
        .default("viterbi"),
    )
    .option(
      "--constraints <file>",
      "constraints file from `lagrange constraints learn` (needed by soft-dd, hard-dd)",
    )
    .option(
      "--max-iterations <n>",
      "dual-decomposition iterations per sentence (default 200); the best labelling so far is kept",
      parseInteger,
    )
    .addOption(
      new Option("--malformed <policy>", "malformed UMass lines")
        .choices(["error", "repair", "skip"])
        .default("skip"),
    )
    .option("--out <file>", "output file (default standard output)")
    .action(async (opts: Record<string, unknown>) => {
      const stats = await tagCommand(opts as unknown as Parameters<typeof tagCommand>[0]);
      note(tagStatsLine(stats, typeof opts.out === "string" ? opts.out : undefined));
    });

  const constraints = program
    .command("constraints")
    .description("Global constraints over a model's labels (anzaroot2014): learn penalties");
  constraints
    .command("learn")
    .description(
      "Generate candidate constraints from templates, prune them by importance (imp(c) ≥ threshold) and learn their penalties on held-out data; writes a versioned constraints file and prints which constraints were kept and dropped",
    )
    .requiredOption("--model <file>", "model file (the base CRF)")
    .requiredOption(
      "--data <spec>",
      "held-out labelled data: a registry name[:split] (default split dev) or a file path",
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .option(
      "--templates <list>",
      "comma-separated families: singleton, pairwise, hierarchical, bio (the BIO mask, always on), rules (adjacency, precedence, state-change, begin-end, presence-precedence) or single rule families",
      "singleton,pairwise,hierarchical",
    )
    .option("--threshold <x>", "keep candidates with importance imp(c) ≥ x", parseNumber, 2.75)
    .addOption(
      new Option("--algorithm <name>", "penalty learner")
        .choices([...PENALTY_ALGORITHMS])
        .default("averaged-perceptron"),
    )
    .option("--epochs <n>", "passes over the held-out data", parseInteger, 5)
    .option("--learning-rate <x>", "perceptron step / SSVM η₀ (default 0.1)", parseNumber)
    .addOption(
      new Option(
        "--count-unit <unit>",
        "what singleton and pairwise constraints count: segments, or full labels (the paper's literal reading)",
      )
        .choices(["label", "segment"])
        .default("segment"),
    )
    .addOption(
      new Option("--malformed <policy>", "malformed UMass lines")
        .choices(["error", "repair", "skip"])
        .default("skip"),
    )
    .requiredOption("--out <file>", "constraints file to write (JSON, atomically)")
    .action(async (opts: Record<string, unknown>) => {
      process.stdout.write(
        await constraintsLearnCommand(
          opts as unknown as Parameters<typeof constraintsLearnCommand>[0],
          abortOnSignal(),
        ),
      );
    });

  program
    .command("info")
    .description("Describe a model file")
    .argument("<model>", "model file")
    .option("--json", "as JSON")
    .action(async (model: string, opts: Record<string, unknown>) => {
      process.stdout.write(await infoCommand(model, opts.json === true));
    });

  program
    .command("demo")
    .description(
      "The main job (anzaroot2014): train a citation CRF on UMass citations (or generated ones), learn soft-constraint penalties on half of dev, decode the other half with Viterbi and with Soft-DD, print both and a citation the constraints changed",
    )
    .option("--max-iterations <n>", "L-BFGS iterations", parseInteger, 60)
    .option("--threads <n>", "worker threads for training", parseInteger, 2)
    .option("--epochs <n>", "penalty-learning epochs", parseInteger, 5)
    .option(
      "--seed <n>",
      "seed of the dev split into learning and evaluation halves",
      parseInteger,
      1,
    )
    .action(
      async (opts: { maxIterations: number; threads: number; epochs: number; seed: number }) => {
        process.stdout.write(await demoCommand({ ...opts, signal: abortOnSignal() }));
      },
    );

  return program;
}

function tagStatsLine(stats: TagStats, out: string | undefined): string {
  const base = `tagged ${stats.sentences} sequences, ${stats.tokens} tokens in ${stats.seconds.toFixed(2)} s (decoding ${stats.decodeSeconds.toFixed(2)} s)`;
  const s = stats.summary;
  const dd =
    s === undefined
      ? ""
      : `; ${s.meanIterations.toFixed(2)} mean iterations (max ${s.maxIterations}), ${(100 * s.certifiedRate).toFixed(1)}% certified, ${(100 * s.changedRate).toFixed(1)}% changed by constraints, ${(100 * s.stillViolatedRate).toFixed(1)}% still violating a soft constraint${s.infeasible > 0 ? `, ${s.infeasible} infeasible` : ""}`;
  return `${base}${dd}${out === undefined ? "" : `; wrote ${out}`}`;
}

function parseNumber(value: string): number {
  const x = Number(value);
  if (!Number.isFinite(x)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return x;
}

function parseInteger(value: string): number {
  const x = Number(value);
  if (!Number.isInteger(x) || x < 1)
    throw new InvalidArgumentError(`expected an integer ≥ 1, got "${value}"`);
  return x;
}

/** Ctrl-C cancels long work cleanly (workers torn down, no partial model file). */
function abortOnSignal(): AbortSignal {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  return controller.signal;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`lagrange: ${error.message}\n`);
      return error.exitCode;
    }
    const e = error as Error & { file?: string; line?: number };
    const badInput = /(FormatError|InputError|ModelFileError|SyntaxError|SchemeError)$/.test(
      e.name,
    );
    if (e.name === "AbortError") {
      process.stderr.write("lagrange: cancelled\n");
      return ExitCode.failure;
    }
    process.stderr.write(`lagrange: ${e.message}\n`);
    if (!badInput && process.env.LAGRANGE_DEBUG) process.stderr.write(`${e.stack}\n`);
    return badInput ? ExitCode.badInput : ExitCode.failure;
  }
}

const isEntry =
  import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("main.ts");
if (isEntry) {
  process.exitCode = await main(process.argv.slice(2));
}
