import { STANDARD_DECODERS } from "@lagrange/recipes";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { FORCE_FLAG, filesOf, INPUT_FILE_KINDS } from "./files-declared.js";
import { buildProgram } from "./main.js";

/** Every command of the program, subcommands included, with its path (`queue submit`). */
function commandsOf(command: Command, prefix = ""): { path: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const path = `${prefix}${sub.name()}`;
    return [{ path, command: sub }, ...commandsOf(sub, `${path} `)];
  });
}

const program = buildProgram(STANDARD_DECODERS);
const commands = commandsOf(program);

/**
 * A value placeholder that names a file (or a folder): what the declaration must cover. Registry
 * specs (`--data <spec>`) are declared too, as data, though `<spec>` alone does not say "file".
 */
const FILE_PLACEHOLDER = /<(file|model|dir|module|path\|url|name=file|svg|file\.\.\.)>/;

describe("the declared files of every command", () => {
  it("cover every option whose placeholder names a file, and every positional file", () => {
    const undeclared: string[] = [];
    for (const { path, command } of commands) {
      const declared = filesOf(command);
      const named = new Set([...Object.keys(declared.inputs), ...declared.outputs]);
      for (const option of command.options) {
        if (FILE_PLACEHOLDER.test(option.flags) && !named.has(option.long ?? "")) {
          undeclared.push(`${path} ${option.flags}`);
        }
      }
      // A positional argument's name is its placeholder: every one but a name (a job's, a
      // dataset's, a task preset's) is a file.
      for (const argument of command.registeredArguments) {
        const shown = argument.required ? `<${argument.name()}>` : `[${argument.name()}]`;
        const aName = ["job", "name", "task"].includes(argument.name());
        if (!aName && !named.has(shown)) undeclared.push(`${path} ${shown}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it("declare --data and --dev wherever a command has them, and only known kinds", () => {
    for (const { path, command } of commands) {
      const declared = filesOf(command);
      for (const flag of ["--data", "--dev", "--model", "--constraints", "--out"]) {
        const option = command.options.find((o) => o.long === flag);
        // `train --model <kind>` chooses a model kind; it names no file.
        if (option !== undefined && !option.flags.includes("<kind>")) {
          const named = flag in declared.inputs || declared.outputs.includes(flag);
          expect(named, `${path} ${flag}`).toBe(true);
        }
      }
      for (const kind of Object.values(declared.inputs)) {
        expect(INPUT_FILE_KINDS).toContain(kind);
      }
    }
  });

  it("give --force to every command that writes a file, and to no other", () => {
    for (const { path, command } of commands) {
      const writes = filesOf(command).outputs.length > 0;
      const force = command.options.find((o) => o.long === FORCE_FLAG);
      if (writes) expect(force?.description, path).toMatch(/read-only/);
      // `queue remove --force` is its own flag (remove a job in use), not the output rule's.
      else if (force !== undefined) expect(force.description, path).not.toMatch(/read-only/);
    }
  });

  it("list the commands that write files", () => {
    const writers = commands
      .filter(({ command }) => filesOf(command).outputs.length > 0)
      .map(({ path }) => path)
      .sort();
    expect(writers).toEqual([
      "clusters",
      "compress",
      "constraints learn",
      "eval",
      "export",
      "factor-graph",
      "import",
      "models build",
      "parse",
      "queue collect",
      "rules mine",
      "tag",
      "train",
    ]);
  });
});
