import { Command, InvalidArgumentError } from "commander";
import { writeAtomic } from "./report.ts";
import { crfVsCrfsuite, crfVsCrfsuiteMarkdown } from "./suites/crf-vs-crfsuite.ts";

const integer = (value: string) => {
  const x = Number(value);
  if (!Number.isInteger(x) || x < 1)
    throw new InvalidArgumentError(`expected an integer ≥ 1, got "${value}"`);
  return x;
};

const status = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const program = new Command("bench")
  .description("Benchmarks against peers, measured in the same run")
  .showHelpAfterError();

program
  .command("crf-vs-crfsuite")
  .description(
    "Train and tag CoNLL-2000 with Lagrange and with CRFsuite (npm binding); JSON + Markdown",
  )
  .option(
    "--out <file.json>",
    "write the JSON result here (the Markdown table goes beside it as .md)",
  )
  .option("--repeats <n>", "runs per system; times are medians", integer, 1)
  .option("--threads <n>", "Lagrange's threads for the objective", integer, 2)
  .option("--max-train <n>", "train on the first n sentences only (a quick check)", integer)
  .option("--max-iterations <n>", "cap L-BFGS iterations for both systems", integer)
  .action(
    async (opts: {
      out?: string;
      repeats: number;
      threads: number;
      maxTrain?: number;
      maxIterations?: number;
    }) => {
      const result = await crfVsCrfsuite({
        repeats: opts.repeats,
        threads: opts.threads,
        ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
        ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
        onStatus: status,
      });
      const markdown = crfVsCrfsuiteMarkdown(result);
      process.stdout.write(markdown);
      if (opts.out !== undefined) {
        await writeAtomic(opts.out, `${JSON.stringify(result, null, 2)}\n`);
        await writeAtomic(opts.out.replace(/\.json$/, "") + ".md", markdown);
        status(`wrote ${opts.out}`);
      }
    },
  );

await program.parseAsync(process.argv.slice(2), { from: "user" });
