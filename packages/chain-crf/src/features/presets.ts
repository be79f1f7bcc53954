import { LagrangeError } from "@lagrange/core";
import { chunkingPreset } from "./chunking.ts";
import { citationPreset } from "./citation.ts";
import { nerPreset, nerWordsPreset } from "./ner.ts";
import { posPreset } from "./pos.ts";
import type { Preset } from "./types.ts";

/** The named presets with default options; model files record a preset by these names. */
export const presets: Readonly<
  Record<"chunking" | "ner" | "ner-words" | "citation" | "pos", Preset>
> = {
  chunking: chunkingPreset(),
  ner: nerPreset(),
  "ner-words": nerWordsPreset(),
  citation: citationPreset(),
  pos: posPreset(),
};

export type PresetName = keyof typeof presets;

/** The preset called `name`, or an error listing the known names. */
export function getPreset(name: string): Preset {
  if (Object.hasOwn(presets, name)) return presets[name as PresetName];
  throw new LagrangeError(
    "usage",
    `unknown feature preset ${JSON.stringify(name)}; expected one of: ${Object.keys(presets).join(", ")}`,
  );
}
