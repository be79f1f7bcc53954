import {
  DATASETS,
  type DatasetFormatId,
  type DatasetSplitInfo,
  type TagScheme,
} from "./catalog.js";
import {
  cacheDir,
  findMirrorDir,
  type LocateOptions,
  locateSplit,
  OFFLINE_ENV,
  type SplitLocation,
} from "./resolve.js";

/**
 * Where a split is, as far as can be told without downloading or hashing: `mirror` and `cache`
 * are on this machine; `download` is fetched into the cache on first use; `sealed` is a test
 * split kept out of the mirror; `offline` is missing with downloads forbidden; `damaged` is a
 * mirror file of the wrong size.
 */
export type SplitWhere = "mirror" | "cache" | "download" | "sealed" | "offline" | "damaged";

export interface ListedSplit {
  /** What `--data` takes: `conll2003:train`. */
  readonly spec: string;
  readonly split: string;
  /** Sentences (sequences) and tokens, where the registry counts them. */
  readonly sequences?: number;
  readonly tokens?: number;
  readonly where: SplitWhere;
  /** The file on this machine (mirror and cache). */
  readonly path?: string;
  /** A customary split of a file that has none (Cora's train): the file's split it is a range of. */
  readonly rangeOf?: string;
}

export interface ListedDataset {
  readonly name: string;
  readonly title: string;
  readonly format: DatasetFormatId;
  /** The column of labels to predict, where the format has columns. */
  readonly labelColumn?: string;
  readonly scheme: TagScheme;
  readonly licence: string;
  readonly redistributable: boolean;
  readonly citation: string;
  readonly splits: readonly ListedSplit[];
}

export interface ListDatasetsOptions extends LocateOptions {
  /** Missing splits are `offline`, not `download` (default env LAGRANGE_OFFLINE). */
  readonly offline?: boolean;
}

export interface DatasetListing {
  readonly datasets: readonly ListedDataset[];
  /** The mirror directory in use, if any. */
  readonly mirror?: string;
  /** Where downloads go. */
  readonly cache: string;
}

/**
 * The registry as a user picks from it: every dataset with its splits (the files' and the
 * customary ranges over a file that has none), their sizes and whether each is on this machine.
 * Reads no file's content: sizes are checked against the registry's, nothing is hashed or fetched.
 */
export function listDatasets(options: ListDatasetsOptions = {}): DatasetListing {
  const catalog = options.catalog ?? DATASETS;
  const flag = (options.env ?? process.env)[OFFLINE_ENV];
  const offline = options.offline ?? (flag === "1" || flag === "true");
  const mirror = findMirrorDir(options);
  const datasets = catalog.map((dataset): ListedDataset => {
    const where = (split: DatasetSplitInfo) =>
      whereOf(() => locateSplit(dataset.name, split.name, { ...options, catalog }), offline);
    const files = dataset.splits.map((split): ListedSplit => {
      const found = where(split);
      return {
        spec: `${dataset.name}:${split.name}`,
        split: split.name,
        ...(split.counts === undefined
          ? {}
          : { sequences: split.counts.sequences, tokens: split.counts.tokens }),
        ...found,
      };
    });
    const ranges = (dataset.customSplits ?? []).map((range): ListedSplit => {
      // A customary range is a slice of the one file that holds every record.
      const file = files.find((f) => f.split === "all") ?? files[0];
      return {
        spec: `${dataset.name}:${range.split}`,
        split: range.split,
        sequences: range.count,
        where: file?.where ?? "download",
        ...(file?.path === undefined ? {} : { path: file.path }),
        rangeOf: file?.split ?? "all",
      };
    });
    const fo = dataset.formatOptions;
    return {
      name: dataset.name,
      title: dataset.title,
      format: dataset.format,
      ...(fo.labelColumn === undefined ? {} : { labelColumn: fo.labelColumn }),
      scheme: fo.scheme,
      licence: dataset.licence,
      redistributable: dataset.redistributable,
      citation: dataset.citation,
      splits: [...files, ...ranges],
    };
  });
  return {
    datasets,
    ...(mirror === undefined ? {} : { mirror }),
    cache: cacheDir(options),
  };
}

function whereOf(
  locate: () => SplitLocation,
  offline: boolean,
): { where: SplitWhere; path?: string } {
  let location: SplitLocation;
  try {
    location = locate();
  } catch {
    // A mirror file of the wrong size (locateSplit's DatasetChecksumError): there, but not usable.
    return { where: "damaged" };
  }
  switch (location.status) {
    case "available":
      return { where: location.source === "cache" ? "cache" : "mirror", path: location.path };
    case "absent":
      return { where: "sealed" };
    case "missing":
      return { where: offline ? "offline" : "download" };
  }
}
