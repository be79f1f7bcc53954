/**
 * How many decoder registries and model reads this process has made: the tagging path promises one
 * of each per run, and its tests hold it to that. Not exported from the package.
 */
export const taggingCounts = { registries: 0, modelReads: 0 };
