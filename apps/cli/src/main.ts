import { Command, CommanderError, Option } from "commander";
import { evalCommand } from "./commands/eval.ts";
import { CliError, ExitCode } from "./exit-codes.ts";

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
      const hierarchical = opts.hierarchical === true ? true : opts.flat === true ? false : undefined;
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

  return program;
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
    const badInput = e.name.endsWith("FormatError") || e.name.endsWith("InputError") || e.name === "ModelFileError";
    process.stderr.write(`lagrange: ${e.message}\n`);
    if (!badInput && process.env.LAGRANGE_DEBUG) process.stderr.write(`${e.stack}\n`);
    return badInput ? ExitCode.badInput : ExitCode.failure;
  }
}

const isEntry = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("main.ts");
if (isEntry) {
  process.exitCode = await main(process.argv.slice(2));
}
