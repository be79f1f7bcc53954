import { LagrangeError } from "@lagrange/core";
import { chunkingPreset } from "./chunking.js";
import { citationPreset } from "./citation.js";
import { nerPreset, nerWordsPreset } from "./ner.js";
import { posPreset } from "./pos.js";
import type { Preset } from "./types.js";

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
