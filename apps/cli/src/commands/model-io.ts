import type { AttributeSequence, CrfModel, DecodingConstraints } from "@lagrange/chain-crf";
import { getPreset } from "@lagrange/chain-crf";
import { allowedTransitions, inputRows, type SchemeName, type Sentence } from "@lagrange/datasets";
import { CliError, ExitCode } from "../exit-codes.ts";

/** Label schemes the CLI decodes with (hierarchical-BIO = IOB2 at every `/` level). */
export const DECODING_SCHEMES = [
  "IOB2",
  "IOB1",
  "IOE1",
  "IOE2",
  "BIOES",
  "hierarchical-BIO",
  "none",
] as const;
export type DecodingScheme = (typeof DECODING_SCHEMES)[number];

/** The transition mask and allowed start/end labels of a scheme over a model's labels. */
export function decodingConstraints(
  labels: readonly string[],
  scheme: string,
): DecodingConstraints | undefined {
  if (scheme === "none" || scheme === "tags") return undefined;
  const hierarchical = scheme === "hierarchical-BIO";
  const mask = allowedTransitions(
    labels,
    (hierarchical ? "IOB2" : scheme) as SchemeName,
    hierarchical ? { levelSeparator: "/" } : {},
  );
  return { allowed: mask.allowed, allowedStart: mask.start, allowedEnd: mask.end };
}

/** Attributes of every sentence with the named preset. */
export function extractAll(
  presetName: string,
  sentences: readonly Sentence[],
): AttributeSequence[] {
  let preset: ReturnType<typeof getPreset>;
  try {
    preset = getPreset(presetName);
  } catch (error) {
    throw new CliError((error as Error).message, ExitCode.usage);
  }
  return sentences.map((s) => preset.extract(inputRows(s)));
}

/** The preset and scheme a model was trained with (stored in its settings). */
export function modelPreset(model: CrfModel, file: string): string {
  if (model.preset === null) {
    throw new CliError(
      `${file}: the model records no feature preset, so its attributes cannot be rebuilt`,
      ExitCode.badInput,
    );
  }
  return model.preset;
}

export function modelScheme(model: CrfModel): string {
  const scheme = model.settings.scheme;
  return typeof scheme === "string" ? scheme : "none";
}
