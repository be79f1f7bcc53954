/**
 * Which flags and arguments of a command name files, and what each file is: declared once, beside
 * the command's options, and read by everything that must know a command's files — the output
 * rule (an output is never one of the command's inputs; `--force` on every command that writes
 * a file), the bounded input opener (each kind's size cap) and the hostile suite, which feeds
 * every declared input an endless device, a FIFO, a folder and an oversized file. A test checks
 * that every option whose value placeholder names a file (`<file>`, `<model>`, …) is declared.
 *
 * Loaded by every run, `--help` included: it imports no workspace package.
 */
import type { Command } from "commander";

/**
 * What an input file is, which sets its size cap (see `INPUT_CAPS` in @lagrange/core/node).
 * `data`: a corpus a reader streams (a registry name is also accepted); `folder`: a directory.
 */
export const INPUT_FILE_KINDS = [
  "data",
  "model",
  "template",
  "lexicon",
  "clusters",
  "constraints",
  "plugin",
  "graph",
  "predictions",
  "text",
  "password",
  "folder",
] as const;
export type InputFileKind = (typeof INPUT_FILE_KINDS)[number];

/** A command's declared files: flags (`--model`) and positional arguments (`<model>`). */
export interface FileDeclaration {
  /** Flag or `<argument>` → what the file is. */
  readonly inputs: Readonly<Record<string, InputFileKind>>;
  /** Flags (or `<argument>`s) that name a file the command writes. */
  readonly outputs: readonly string[];
}

const declarations = new WeakMap<Command, FileDeclaration>();

/** The flag every command that writes a file gets: replace a read-only output. */
export const FORCE_FLAG = "--force";

/**
 * Declares `command`'s file flags and arguments (each must exist already: a misspelt one throws
 * when the program is built, which every test does). A command that writes a file also gets
 * `--force`.
 */
export function declareFiles(command: Command, declaration: FileDeclaration): Command {
  for (const name of [...Object.keys(declaration.inputs), ...declaration.outputs]) {
    if (!isArgumentName(name) && command.options.every((o) => o.long !== name)) {
      throw new Error(`${command.name()}: declareFiles names ${name}, which is not an option`);
    }
    if (isArgumentName(name) && argumentIndex(command, name) < 0) {
      throw new Error(`${command.name()}: declareFiles names ${name}, which is not an argument`);
    }
  }
  declarations.set(command, declaration);
  if (declaration.outputs.length > 0 && command.options.every((o) => o.long !== FORCE_FLAG)) {
    command.option(
      FORCE_FLAG,
      "replace an output file that is read-only (its mode and owner are kept either way)",
    );
  }
  return command;
}

/** The declaration of `command` (empty when it names no file). */
export function filesOf(command: Command): FileDeclaration {
  return declarations.get(command) ?? { inputs: {}, outputs: [] };
}

/** One input file a command line named: the flag, what it is and the path (`--lexicon org=x` → x). */
export interface NamedInput {
  readonly flag: string;
  readonly kind: InputFileKind;
  readonly path: string;
}

/** What the files of one run of a command are: its inputs and outputs as given, and `--force`. */
export interface CommandFiles {
  readonly inputs: readonly NamedInput[];
  readonly outputs: readonly { readonly flag: string; readonly path: string }[];
  readonly force: boolean;
}

let current: CommandFiles = { inputs: [], outputs: [], force: false };
let currentDeclaration: FileDeclaration = { inputs: {}, outputs: [] };

/**
 * Records the files of the command about to run (the program's `preAction` hook), so that the
 * output rule compares each output with every input the definition declares, not with a list each
 * command keeps by hand.
 */
export function recordCommandFiles(command: Command): void {
  const declaration = filesOf(command);
  const inputs: NamedInput[] = [];
  const options = command.opts<Record<string, unknown>>();
  const valueGiven = (flag: string) =>
    isArgumentName(flag)
      ? command.processedArgs[argumentIndex(command, flag)]
      : options[attributeOf(command, flag)];
  for (const [flag, kind] of Object.entries(declaration.inputs)) {
    for (const given of valuesOf(valueGiven(flag))) {
      const path = kind === "lexicon" ? (splitLexiconArgument(given)?.file ?? given) : given;
      inputs.push({ flag, kind, path });
    }
  }
  const outputs = declaration.outputs.flatMap((flag) =>
    valuesOf(valueGiven(flag)).map((path) => ({ flag, path })),
  );
  current = { inputs, outputs, force: options.force === true };
  currentDeclaration = declaration;
}

/**
 * What the running command declares `flag` to be (`--lexicon` → lexicon), so that a reader given
 * only the flag applies its kind's size cap, standard input (`--data -`) included; undefined when
 * it declares no such input.
 */
export function declaredInputKind(flag: string): InputFileKind | undefined {
  return currentDeclaration.inputs[flag];
}

/** The files of the command that is running (see {@link recordCommandFiles}). */
export function commandFiles(): CommandFiles {
  return current;
}

/**
 * `--lexicon NAME=FILE` split at its first `=`; undefined without a NAME or a FILE. The one
 * reading of the flag's value: for the files a command reads, and for training's lexicons.
 */
export function splitLexiconArgument(value: string): { name: string; file: string } | undefined {
  const at = value.indexOf("=");
  if (at <= 0 || at === value.length - 1) return undefined;
  return { name: value.slice(0, at), file: value.slice(at + 1) };
}

function valuesOf(value: unknown): string[] {
  if (typeof value === "string") return value === "-" ? [] : [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

function isArgumentName(name: string): boolean {
  return name.startsWith("<") || name.startsWith("[");
}

function argumentIndex(command: Command, name: string): number {
  const bare = name.replace(/^[<[]|[>\]]$/g, "").replace(/\.\.\.$/, "");
  return command.registeredArguments.findIndex((a) => a.name() === bare);
}

function attributeOf(command: Command, flag: string): string {
  const option = command.options.find((o) => o.long === flag);
  return option?.attributeName() ?? flag;
}
