/**
 * Every command's `--help` fits a screen (≤ 45 lines at 80 columns) with two examples; the full
 * listing (`--help-all`, `help <command> --all`) keeps every option; the exit codes are printed
 * under the program's help alone, and in full by `lagrange help exit-codes`.
 */
import { STANDARD_DECODERS } from "@lagrange/recipes";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMAND_HELP, commandPath } from "./help.js";
import { buildProgram } from "./main.js";
import { run } from "./testing/run-cli.js";

/** Every command below the program, by its words: ["train"], ["queue", "submit"]. */
function commandPaths(): string[][] {
  const paths: string[][] = [];
  const visit = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      paths.push([...path, sub.name()]);
      visit(sub, [...path, sub.name()]);
    }
  };
  visit(buildProgram(STANDARD_DECODERS), []);
  return paths;
}

describe("--help", () => {
  const paths = [[], ...commandPaths()];

  it.each(paths.map((path) => [path.join(" ") || "(program)", path]))(
    "%s: at most 45 lines, two examples, a one-line summary",
    async (_, path) => {
      const help = await run([...(path as string[]), "--help"]);
      expect(help.code).toBe(0);
      const lines = help.stdout.trimEnd().split("\n");
      expect(lines.length, help.stdout).toBeLessThanOrEqual(45);
      const examples = help.stdout.split("\nExamples:\n")[1] ?? "";
      const commands = examples.split("\n").filter((line) => /^ {2}\S/.test(line));
      expect(commands.length, help.stdout).toBeGreaterThanOrEqual(2);
      expect(lines[2], "the summary is one line").toBe(
        COMMAND_HELP[(path as string[]).join(" ")]?.summary,
      );
    },
  );

  it("every command has an entry (summary, common options, examples)", () => {
    for (const path of commandPaths()) {
      expect(COMMAND_HELP[path.join(" ")], path.join(" ")).toBeDefined();
    }
  });

  it("--help-all and help <command> --all list every option; --help the common ones", async () => {
    const program = buildProgram(STANDARD_DECODERS);
    for (const command of [program, ...program.commands.flatMap((c) => [c, ...c.commands])]) {
      const path = commandPath(command).split(" ").filter(Boolean);
      const all = await run([...path, "--help-all"]);
      expect(all.code).toBe(0);
      const short = await run([...path, "--help"]);
      const common = COMMAND_HELP[path.join(" ")]?.common ?? {};
      for (const option of command.options) {
        if (option.hidden || option.long === undefined) continue;
        expect(all.stdout, `${path.join(" ")} ${option.long}`).toContain(option.long);
        const shown = new RegExp(`^ {2}(-\\w, )?${option.long}\\b`, "m").test(short.stdout);
        expect(shown, `${path.join(" ")} --help shows ${option.long}`).toBe(option.long in common);
      }
    }
    expect((await run(["help", "train", "--all"])).stdout).toBe(
      (await run(["train", "--help-all"])).stdout,
    );
  });

  it("a flag no entry names is in the full listing only, and --help counts it", async () => {
    const train = await run(["train", "--help"]);
    expect(train.stdout).not.toContain("--passes");
    expect(train.stdout).toMatch(/^Every option \(\d+ more\): lagrange train --help-all$/m);
    const all = await run(["train", "--help-all"]);
    expect(all.stdout).toMatch(/Learning to search \(--learner l2s\):\n {2}--task/);
    expect(all.stdout).toMatch(/--partial[\s\S]*\{B-PER,I-PER\}/);
  });

  it("tag's decoder options come from the decoders' declarations, grouped in the full listing", async () => {
    const all = await run(["tag", "--help-all"]);
    const group = all.stdout.split("Decoder options (each read by the decoders it names):\n")[1];
    expect(group).toBeDefined();
    for (const definition of STANDARD_DECODERS) {
      for (const option of definition.options ?? []) {
        expect(group, option.name).toContain(`--${option.name} `);
      }
    }
    expect((await run(["tag", "--help"])).stdout).not.toContain("Decoder options");
  });

  it("prints the exit codes once: in brief under the program, in full by help exit-codes", async () => {
    const program = await run(["--help"]);
    expect(program.stdout.match(/Exit codes/g)).toHaveLength(1);
    expect(program.stdout).toContain("lagrange help exit-codes");
    for (const path of commandPaths()) {
      expect((await run([...path, "--help"])).stdout, path.join(" ")).not.toMatch(/Exit codes/);
    }
    const table = await run(["help", "exit-codes"]);
    expect(table.code).toBe(0);
    for (const code of ["0", "1", "2", "3", "4", "130", "137"]) {
      expect(table.stdout).toMatch(new RegExp(`^ {2}${code} +\\S`, "m"));
    }
  });
});
