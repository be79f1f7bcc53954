import { Command, CommanderError } from "commander";
import { registerConstraints } from "./commands/constraints.ts";
import { registerDemo } from "./commands/demo.ts";
import { registerEval } from "./commands/eval.ts";
import { registerInfo } from "./commands/info.ts";
import { registerTag } from "./commands/tag.ts";
import { registerTrain } from "./commands/train.ts";
import { ExitCode, exitCodeOf } from "./exit-codes.ts";

function buildProgram(): Command {
  const program = new Command("lagrange")
    .description("Structured prediction with global constraints: train, tag, evaluate.")
    .showHelpAfterError()
    .exitOverride();
  registerEval(program);
  registerTrain(program);
  registerTag(program);
  registerConstraints(program);
  registerInfo(program);
  registerDemo(program);
  return program;
}

/** Runs the CLI on `argv` (without the node and script names); returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: "user" });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const e = error as Error;
    const code = exitCodeOf(error);
    process.stderr.write(`lagrange: ${e.name === "AbortError" ? "cancelled" : e.message}\n`);
    if (code === ExitCode.failure && process.env.LAGRANGE_DEBUG)
      process.stderr.write(`${e.stack}\n`);
    return code;
  }
}

const isEntry =
  import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("main.ts");
if (isEntry) {
  process.exitCode = await main(process.argv.slice(2));
}
