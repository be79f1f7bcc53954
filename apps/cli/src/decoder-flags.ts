import type { DecoderDefinition, DecoderOptionSpec, DecoderOptionValue } from "@lagrange/core";
import { type Command, Option } from "commander";
import { usageError } from "./exit-codes.js";
import { collect } from "./options.js";

/**
 * Old spellings kept working: `--bcrf-iterations` sets the option the bcrf and mean-field decoders
 * declare as `iterations`.
 */
const ALIASES: Readonly<Record<string, string>> = { "bcrf-iterations": "iterations" };

/** The heading of the decoders' options in `lagrange tag --help-all`. */
const DECODER_OPTIONS = "Decoder options (each read by the decoders it names):";

/** commander's key for a flag: `max-iterations` → `maxIterations`. */
function keyOf(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Every option the definitions declare, by name, with the decoders that declare it. */
function declaredOptions(
  definitions: readonly DecoderDefinition[],
): Map<string, { spec: DecoderOptionSpec; decoders: string[] }> {
  const byName = new Map<string, { spec: DecoderOptionSpec; decoders: string[] }>();
  for (const definition of definitions) {
    for (const spec of definition.options ?? []) {
      const known = byName.get(spec.name);
      if (known === undefined) byName.set(spec.name, { spec, decoders: [definition.name] });
      else known.decoders.push(definition.name);
    }
  }
  return byName;
}

/** "bcrf (default 50), mean-field (default 10)". */
function whoTakes(name: string, definitions: readonly DecoderDefinition[]): string {
  return definitions
    .flatMap((d) => {
      const spec = d.options?.find((o) => o.name === name);
      return spec === undefined
        ? []
        : [`${d.name} (default ${spec.default}${spec.unit === undefined ? "" : ` ${spec.unit}`})`];
    })
    .join(", ");
}

/**
 * Adds a `--<name> <value>` flag for every option the registry's decoders declare (help from the
 * declarations: which decoders read it and their defaults), and `--decoder-option name=value` for
 * a plug-in decoder's options. Values stay strings here: the decoder's declaration checks them.
 */
export function addDecoderFlags(command: Command, definitions: readonly DecoderDefinition[]): void {
  for (const [name, { spec }] of declaredOptions(definitions)) {
    // A boolean stands alone (`--exact`) or takes a value (`--exact false`).
    const value = spec.type === "boolean" ? "[value]" : "<value>";
    command.addOption(
      new Option(
        `--${name} ${value}`,
        `${spec.help}; read by ${whoTakes(name, definitions)}`,
      ).helpGroup(DECODER_OPTIONS),
    );
  }
  for (const [alias, name] of Object.entries(ALIASES)) {
    command.addOption(new Option(`--${alias} <value>`, `the same as --${name}`).hideHelp());
  }
  command.addOption(
    new Option(
      "--decoder-option <name=value>",
      "an option of the chosen decoder by its declared name (a plug-in decoder's too); repeatable",
    )
      .argParser(collect)
      .helpGroup(DECODER_OPTIONS),
  );
}

/**
 * The decoder options a command line gave, by declared name: the flags {@link addDecoderFlags}
 * made, then each `--decoder-option name=value` (a name given twice is a usage error).
 */
export function decoderOptionsGiven(
  opts: Readonly<Record<string, unknown>>,
  definitions: readonly DecoderDefinition[],
): Record<string, DecoderOptionValue> {
  const given: Record<string, DecoderOptionValue> = {};
  const set = (name: string, value: string, how: string) => {
    if (name in given) throw usageError(`${how}: the decoder option ${name} is given twice`);
    given[name] = value;
  };
  for (const name of declaredOptions(definitions).keys()) {
    const value = opts[keyOf(name)];
    if (typeof value === "string") set(name, value, `--${name}`);
    else if (value === true) set(name, "true", `--${name}`);
  }
  for (const [alias, name] of Object.entries(ALIASES)) {
    const value = opts[keyOf(alias)];
    if (typeof value === "string") set(name, value, `--${alias}`);
  }
  for (const pair of (opts.decoderOption as readonly string[] | undefined) ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      throw usageError(`--decoder-option ${pair}: expected name=value (e.g. max-iterations=50)`);
    }
    set(pair.slice(0, at), pair.slice(at + 1), `--decoder-option ${pair}`);
  }
  return given;
}
