import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { demoCommand } from "./commands/demo.ts";
import { evalCommand } from "./commands/eval.ts";
import { infoCommand } from "./commands/info.ts";
import { tagCommand } from "./commands/tag.ts";
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
    .description("Label data with a model; writes the input's columns plus the predicted label")
    .requiredOption("--model <file>", "model file")
    .requiredOption(
      "--data <spec>",
      "data to tag: a registry name[:split] (default split dev) or a file path",
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .addOption(new Option("--decoder <name>", "decoder").choices(["viterbi"]).default("viterbi"))
    .addOption(
      new Option("--malformed <policy>", "malformed UMass lines")
        .choices(["error", "repair", "skip"])
        .default("skip"),
    )
    .option("--out <file>", "output file (default standard output)")
    .action(async (opts: Record<string, unknown>) => {
      const stats = await tagCommand(opts as unknown as Parameters<typeof tagCommand>[0]);
      if (typeof opts.out === "string") {
        note(
          `tagged ${stats.sentences} sequences, ${stats.tokens} tokens in ${stats.seconds.toFixed(2)} s (${Math.round(stats.tokens / stats.seconds)} tokens/s); wrote ${opts.out}`,
        );
      }
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
      "The main job: a citation CRF on UMass citations (or generated ones), decoded and evaluated",
    )
    .option("--max-iterations <n>", "L-BFGS iterations", parseInteger, 60)
    .option("--threads <n>", "worker threads for training", parseInteger, 2)
    .action(async (opts: { maxIterations: number; threads: number }) => {
      process.stdout.write(await demoCommand({ ...opts, signal: abortOnSignal() }));
    });

  return program;
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
