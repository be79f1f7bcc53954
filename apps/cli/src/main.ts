import { type DecoderDefinition, isAbortError } from "@lagrange/core";
import { redactSecrets } from "@lagrange/core/node";
import { Command, CommanderError } from "commander";
import { defineClusters } from "./define/clusters.js";
import { defineCompress } from "./define/compress.js";
import { defineConstraints } from "./define/constraints.js";
import { defineDatasets } from "./define/datasets.js";
import { defineDemo } from "./define/demo.js";
import { defineEval } from "./define/eval.js";
import { defineExplain } from "./define/explain.js";
import { defineExport } from "./define/export.js";
import { defineFactorGraph } from "./define/factor-graph.js";
import { defineImport } from "./define/import.js";
import { defineInfo } from "./define/info.js";
import { defineModels } from "./define/models.js";
import { defineParse } from "./define/parse.js";
import { defineQueue } from "./define/queue.js";
import { defineRules } from "./define/rules.js";
import { defineTag } from "./define/tag.js";
import { defineTrain } from "./define/train.js";
import { ExitCode, exitCodeOf } from "./exit-codes.js";
import { commandFiles, recordCommandFiles } from "./files-declared.js";
import { exitCodesHelp, helpArguments, layOutHelp, wantsFullHelp } from "./help.js";
import {
  announceFinalLine,
  removeTemporaryFiles,
  STOP_SIGNALS,
  signalExitCode,
  stopSignal,
} from "./interruption.js";
import { refuseOutputsThatAreInputs } from "./output.js";
import { writeStderr } from "./progress.js";
import { version } from "./version.js";

/**
 * The decoders whose declared options become `lagrange tag`'s flags: loaded only for `tag` (and its
 * help), so that other commands start without importing every decoder package.
 */
async function tagDecoders(argv: readonly string[]): Promise<readonly DecoderDefinition[]> {
  const tag = argv[0] === "tag" || (argv[0] === "help" && argv[1] === "tag");
  return tag ? (await import("@lagrange/recipes")).STANDARD_DECODERS : [];
}

/** The program and its commands; `fullHelp`: their help lists every option (`--help-all`). */
export function buildProgram(decoders: readonly DecoderDefinition[], fullHelp = false): Command {
  const program = new Command("lagrange")
    .description("Structured prediction with global constraints: train, tag, parse, evaluate.")
    .version(version(), "-V, --version", "print the version")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeErr: writeStderr });
  defineDatasets(program);
  defineEval(program);
  defineTrain(program);
  defineModels(program);
  defineTag(program, decoders);
  defineExplain(program);
  defineParse(program);
  defineConstraints(program);
  defineRules(program);
  defineClusters(program);
  defineFactorGraph(program);
  defineInfo(program);
  defineImport(program);
  defineExport(program);
  defineCompress(program);
  defineDemo(program);
  defineQueue(program);
  // Before any command, from its declared files (files-declared.ts): an output is never one of its
  // inputs, and an input that is a device, a folder or over its kind's cap is refused at once.
  program.hook("preAction", async (_program, command) => {
    recordCommandFiles(command);
    refuseOutputsThatAreInputs();
    (await import("./input-check.js")).checkCommandInputs(commandFiles());
  });
  layOutHelp(program, fullHelp);
  return program;
}

/** Runs the CLI on `argv` (without the node and script names); returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    const exitCodes = exitCodesHelp(argv);
    if (exitCodes !== undefined) {
      process.stdout.write(exitCodes);
      return ExitCode.ok;
    }
    const args = helpArguments(argv);
    const program = buildProgram(await tagDecoders(args), wantsFullHelp(argv));
    await program.parseAsync(args, { from: "user" });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // The reader of standard output went away (`lagrange tag … | head`): stop quietly, as Unix tools do.
    if (errnoOf(error) === "EPIPE") return ExitCode.ok;
    const signal = stopSignal();
    const code = exitCodeOf(error, signal);
    announceFinalLine();
    // Any message may quote a URL with its credentials: redacted before the clip, which could cut
    // a secret in two (writeStderr redacts whatever else it writes).
    writeStderr(`lagrange: ${clip(redactSecrets(messageOf(error, code, signal)))}\n`);
    if (code === ExitCode.failure && process.env.LAGRANGE_DEBUG) {
      writeStderr(`${(error as Error).stack}\n`);
    }
    return code;
  }
}

/** A message quoting a huge token or line (a 1 MB line) is cut to something a terminal shows. */
function clip(message: string): string {
  return message.length <= 2000
    ? message
    : `${message.slice(0, 1500)} … (${message.length - 1500} more characters)`;
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** One line: what went wrong, in the user's terms (never a stack trace). */
function messageOf(error: unknown, code: number, signal: string | undefined): string {
  const e = error instanceof Error ? error : new Error(String(error));
  if (signal !== undefined && isAbortError(e))
    return `stopped by ${signal}; no partial output was kept`;
  const errno = errnoOf(e);
  const io = e as { syscall?: string; path?: string };
  if (errno !== undefined && io.syscall === "write" && io.path === undefined) {
    return standardOutputFailure(e);
  }
  if (code !== ExitCode.failure || errno !== undefined || isExpected(e)) return e.message;
  return `internal error: ${e.message} (LAGRANGE_DEBUG=1 shows where)`;
}

function standardOutputFailure(error: Error): string {
  return `cannot write standard output: ${error.message.replace(/^E[A-Z]+: /, "").replace(/, write$/, "")}`;
}

/** Failures that are not bugs: an error with a Lagrange or errno code, or a named failure class. */
function isExpected(error: Error): boolean {
  return (
    (error as { code?: unknown }).code !== undefined ||
    error.name === "FileWriteError" ||
    error.name === "TrainingFailedError" ||
    error.name === "NoRulesMinedError" ||
    error.name === "AbortError"
  );
}

/**
 * The process around `main`, for the `lagrange` binary: standard output that fails (a closed pipe,
 * a full disk) ends the process cleanly rather than with an unhandled 'error' event, and nothing
 * unexpected prints a stack trace. Sets the exit code.
 */
export async function runAsProcess(argv: readonly string[]): Promise<void> {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    removeTemporaryFiles();
    if (error.code === "EPIPE") process.exit(ExitCode.ok);
    writeStderr(`lagrange: ${standardOutputFailure(error)}\n`);
    process.exit(ExitCode.failure);
  });
  process.stderr.on("error", () => {
    // Nowhere left to report; the exit code still tells.
  });
  const fatal = (error: unknown) => {
    removeTemporaryFiles();
    if (errnoOf(error) === "EPIPE") process.exit(ExitCode.ok);
    announceFinalLine();
    writeStderr(`lagrange: internal error: ${(error as Error)?.message ?? String(error)}\n`);
    if (process.env.LAGRANGE_DEBUG) writeStderr(`${(error as Error)?.stack}\n`);
    process.exit(ExitCode.failure);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
  const code = await main(argv);
  // Stopped by a signal: the outputs are aborted and the line written; nothing left to wait for
  // (a solver, a worker, a read still in flight would hold the process past the supervisor's grace).
  if (STOP_SIGNALS.some((name) => signalExitCode(name) === code)) process.exit(code);
  process.exitCode = code;
}

/** Run as a script (`node … src/main.ts`, the workspace's way); the built binary enters by bin.ts. */
const isEntry = /[\\/]main\.[cm]?[jt]s$/.test(process.argv[1] ?? "");
if (isEntry) await runAsProcess(process.argv.slice(2));
