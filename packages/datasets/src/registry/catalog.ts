import { LagrangeError } from "@lagrange/core";
/**
 * The datasets the project knows: where each split lives in the mirror, where it can be
 * downloaded from (raw GitHub at a fixed commit) and its SHA-256. Checksums and sizes are those
 * of the files in ../shared/datasets (see each SOURCE.md); the sealed test splits keep the
 * checksum SOURCE.md gives but no size, as their files are not in the mirror.
 */

/** Format ids; the formats module maps each one to a reader. */
export const DatasetFormat = {
  /** Whitespace-separated token columns, blank line between sentences, optional -DOCSTART-. */
  conll: "conll",
  /** CoNLL-U (Universal Dependencies). */
  conllu: "conllu",
  /** UMass citation lines: nested inline `<tag> … </tag>` elements, one citation per line. */
  umassNested: "umass-nested",
  /** Flat inline tags (Cora): records separated by a marker line, no nesting. */
  inlineFlat: "inline-flat",
} as const;

export type DatasetFormatId = (typeof DatasetFormat)[keyof typeof DatasetFormat];

/** `tags`: one tag per token with no spans (POS); `inline`: flat inline elements (Cora). */
export type TagScheme = "IOB1" | "IOB2" | "hierarchical-BIO" | "inline" | "tags";

/** How to read a dataset's files, beyond its format id. */
export interface DatasetFormatOptions {
  /** Column names, left to right (conll formats). */
  readonly columns?: readonly string[];
  /** Column separator: a single space or a tab (conll formats). */
  readonly separator?: " " | "\t";
  /** The column holding the label to predict. */
  readonly labelColumn?: string;
  /** Tag scheme of the label column. */
  readonly scheme: TagScheme;
  /** Document boundary line prefix (CoNLL-2003). */
  readonly documentMarker?: string;
  /** Line that opens each record (Cora inline files). */
  readonly recordMarker?: string;
}

/** Where a split can be fetched from. */
export type DownloadSource =
  | { readonly kind: "file"; readonly url: string }
  /** A member of a zip archive whose MD5 is known (NLTK data). */
  | {
      readonly kind: "zip";
      readonly url: string;
      readonly archiveMd5: string;
      readonly member: string;
    };

interface SplitInfoBase {
  /** Split name: train, dev, test, or all where the files define no split. */
  readonly name: string;
  /** File name inside the dataset's mirror folder (and cache folder). */
  readonly file: string;
  /** Size in bytes, where the file has been measured. */
  readonly bytes?: number;
  /** Sequences and tokens as SOURCE.md counts them. */
  readonly counts?: { readonly sequences: number; readonly tokens: number };
  readonly sources: readonly DownloadSource[];
}

/** A split in the mirror: its SHA-256 is always known. */
export interface OpenSplitInfo extends SplitInfoBase {
  readonly sha256: string;
  readonly sealed?: false;
}

/**
 * A test split kept out of the shared mirror for independent evaluation. Its SHA-256 is given
 * where SOURCE.md states one; where none was published (CoNLL-2002 testb) it is left out rather
 * than invented: such a split is then only fetched from a zip source whose archive MD5 is known,
 * and a copy found in the cache or the mirror is taken as it is.
 */
export interface SealedSplitInfo extends SplitInfoBase {
  readonly sha256?: string;
  readonly sealed: true;
}

export type DatasetSplitInfo = OpenSplitInfo | SealedSplitInfo;

/** A customary split of a file that has none (Cora): records [start, start + count). */
export interface RecordRange {
  readonly split: string;
  readonly start: number;
  readonly count: number;
}

export interface DatasetInfo {
  readonly name: string;
  readonly title: string;
  /** Folder name in the mirror and the cache. */
  readonly folder: string;
  readonly format: DatasetFormatId;
  readonly formatOptions: DatasetFormatOptions;
  readonly splits: readonly DatasetSplitInfo[];
  readonly licence: string;
  /** False where the text must not be republished (Reuters). */
  readonly redistributable: boolean;
  readonly customSplits?: readonly RecordRange[];
  readonly citation: string;
}

const gh = (repo: string, commit: string, path: string): DownloadSource => ({
  kind: "file",
  url: `https://raw.githubusercontent.com/${repo}/${commit}/${path}`,
});

/** Reads the files of the NLTK data corpus `corpus` (a zip whose MD5 is known) as its members. */
const nltk =
  (corpus: string, archiveMd5: string) =>
  (file: string): DownloadSource => ({
    kind: "zip",
    url: `https://raw.githubusercontent.com/nltk/nltk_data/5db857e6f7df11eabb5e5665836db9ec8df07e28/packages/corpora/${corpus}.zip`,
    archiveMd5,
    member: `${corpus}/${file}`,
  });

const NLTK_CONLL2000 = nltk("conll2000", "9529b285edd5fe47271da69df1052301");
/**
 * NLTK's conll2002.zip at the commit the mirror was unzipped from. Its MD5 is the `checksum`
 * attribute of the `conll2002` entry of that commit's `index.xml` (the same check as conll2000's);
 * the archive itself was not re-hashed here. Each member's SHA-256 is checked after extraction
 * where SOURCE.md gives one.
 */
const NLTK_CONLL2002 = nltk("conll2002", "67bb4ca75fa81544d42a159524726e78");
const CONLL2002_LICENCE =
  "research use in the context of the CoNLL-2002 shared task only, no commercial use; do not redistribute";
const CONLL2002_CITATION =
  "Tjong Kim Sang (2002), Introduction to the CoNLL-2002 Shared Task: Language-Independent Named Entity Recognition";
const TWITTER_NLP = ["aritter/twitter_nlp", "65f3d77134c40d920db8d431c5c6faef1c051c94"] as const;
const UMASS = ["mmcmahon13/umass-citation", "ecbbd739a8ea9aa6aa76b67e83fe50d5229abade"] as const;
const UMASS_FLAT = [
  "iesl/bibtex-fields-extraction",
  "5082585afe9d11292eebf6735b91d6e4eebac07c",
] as const;
const CONLL2003 = ["synalp/NER", "c0ea07c81ec3512b5047dcd804b0ac2b10a3bdfc"] as const;
const UD_EWT = [
  "UniversalDependencies/UD_English-EWT",
  "15d613d8447b3478787d4c278730a1e48a945efb",
] as const;
const WNUT17 = ["leondz/emerging_entities_17", "e52a2d2a71ac1a051ca2d532eef28653c5c02603"] as const;

/** The format of a conll file with these columns (space-separated names), the last the label. */
function conll(
  columns: string,
  separator: " " | "\t",
  scheme: TagScheme,
  documentMarker?: string,
): Pick<DatasetInfo, "format" | "formatOptions"> {
  const names = columns.split(" ");
  return {
    format: DatasetFormat.conll,
    formatOptions: {
      columns: names,
      separator,
      labelColumn: names.at(-1)!,
      scheme,
      ...(documentMarker === undefined ? {} : { documentMarker }),
    },
  };
}

type SplitRow = [
  name: string,
  file: string,
  bytes: string,
  seqs: string,
  tokens: string,
  sha: string,
];

/**
 * A catalogue entry: its splits a table, a split a row of name, file, bytes, sequences, tokens
 * and SHA-256, each split's one source `source(file)`. A split without bytes ("-") is sealed (not
 * in the mirror); a SHA-256 of "-" is one that was never published.
 */
function dataset(
  entry: Omit<DatasetInfo, "splits"> & {
    readonly source: (file: string) => DownloadSource;
    readonly splits: string;
  },
): DatasetInfo {
  const { name, title, folder, format, formatOptions, source, splits: table, ...rest } = entry;
  const cells = table.trim().split(/\s+/);
  const splits: DatasetSplitInfo[] = [];
  for (let i = 0; i < cells.length; i += 6) {
    const [split, file, bytes, sequences, tokens, sha256] = cells.slice(i, i + 6) as SplitRow;
    const counts = { sequences: Number(sequences), tokens: Number(tokens) };
    const sources = [source(file)];
    splits.push(
      bytes === "-"
        ? {
            name: split,
            file,
            ...(sha256 === "-" ? {} : { sha256 }),
            counts,
            sources,
            sealed: true,
          }
        : { name: split, file, sha256, bytes: Number(bytes), counts, sources },
    );
  }
  return { name, title, folder, format, formatOptions, splits, ...rest };
}

export const DATASETS: readonly DatasetInfo[] = [
  dataset({
    name: "conll2000",
    title: "CoNLL-2000 chunking (Tjong Kim Sang & Buchholz, 2000)",
    folder: "conll2000",
    ...conll("word pos chunk", " ", "IOB2"),
    source: NLTK_CONLL2000,
    splits: `
      train train.txt 2842164 8936 211727
        82033cd7a72b209923a98007793e8f9de3abc1c8b79d646c50648eb949b87cea
      test  test.txt   639396 2012  47377
        73b7b1e565fa75a1e22fe52ecdf41b6624d6f59dacb591d44252bf4d692b1628`,
    licence: "none stated (WSJ/Penn Treebank text, redistributed by NLTK)",
    redistributable: true,
    citation: "Tjong Kim Sang & Buchholz (2000), Introduction to the CoNLL-2000 shared task",
  }),
  dataset({
    name: "conll2003",
    title: "CoNLL-2003 English NER (Tjong Kim Sang & De Meulder, 2003)",
    folder: "conll2003",
    ...conll("word pos chunk ner", " ", "IOB1", "-DOCSTART-"),
    source: (file) => gh(...CONLL2003, `corpus/CoNLL-2003/${file}`),
    splits: `
      train eng.train 3281528 14041 203621
        eac0822f501353f265383ddf1edb0dcd42a1b6eefd3e383d7074db98c38eb41c
      dev   eng.testa  827012  3250  51362
        aedc4ccbd1ae9795feaa0e86fe72d195b0258abed9d705b630d1c889276fac1e
      test  eng.testb       -  3453  46435
        0632f32c090ef31c223135b7fee3187a7cf8e65c4015c7866bb7783428cdd9a6`,
    licence: "Reuters RCV1 text: research use only, do not redistribute",
    redistributable: false,
    citation: "Tjong Kim Sang & De Meulder (2003), Introduction to the CoNLL-2003 shared task",
  }),
  dataset({
    name: "ud-en-ewt",
    title: "Universal Dependencies English EWT r2.16",
    folder: "ud_english_ewt",
    format: DatasetFormat.conllu,
    formatOptions: { labelColumn: "UPOS", scheme: "tags" },
    source: (file) => gh(...UD_EWT, file),
    splits: `
      train en_ewt-ud-train.conllu 14203025 12544 204577
        3fb78e2b55482c8ee00caa653af436c88c9e5bc9a73ce26e4ae3ddc79d2b7e7b
      dev   en_ewt-ud-dev.conllu    1805545  2001  25147
        531a54ff90d6ab12201c5a50c3e78e6ddac4de69abc4bce5d275d3cd29efe2b6
      test  en_ewt-ud-test.conllu         -  2077  25094
        e266e515a0a7547657ed3d90d9ba46487d6bd251f27ad4269d4e8a427c8555cd`,
    licence: "CC BY-SA 4.0",
    redistributable: true,
    citation: "Silveira et al. (2014), A Gold Standard Dependency Corpus for English",
  }),
  dataset({
    name: "umass-citations",
    title: "UMass Citation Field Extraction (Anzaroot & McCallum, 2013), nested",
    folder: "umass_citation",
    format: DatasetFormat.umassNested,
    formatOptions: { scheme: "hierarchical-BIO" },
    source: (file) => gh(...UMASS, file),
    splits: `
      train training.docs 712622 1457 37281
        6b90765624fbc8d68d0b21a4d8a51508be71baafd8f621fb5c1a6a7d0cbef8d7
      dev   dev.docs      310915  660 16249
        359def2eba2947b49c138fa6c9c2fb747e9ccb8ff9d5cb559eaf4dbaf8d4df9e
      test  testing.docs       -  367  9237
        c1a19f5a9fd95c79ec5bcf7db9d408c057336f72c8b8552c1ff767167c509ff9`,
    licence: "none stated (research data; cite the paper)",
    redistributable: true,
    citation:
      "Anzaroot & McCallum (2013), A New Dataset for Fine-Grained Citation Field Extraction",
  }),
  dataset({
    name: "umass-citations-flat",
    title: "UMass Citation Field Extraction, IESL's flat BIO version (Thai et al., 2020)",
    folder: "umass_citation_flat_iesl",
    ...conll("word label", " ", "IOB2"),
    source: (file) => gh(...UMASS_FLAT, `data-raw/bibtex-ner-umass/${file}`),
    splits: `
      train train.txt 456882 1454 40532
        7b010a6171ad2ad30a09e72fb49fcda1b853c8d340ce9713a650a1cb992b9305
      dev   dev.txt   188566  651 16460
        05eabd9fb3268b3300c69af7c7eeb71e82ae2938931bd42b402f090fc6e41ecb
      test  test.txt       -  367  9512
        bc4fc320ac43dcb885de747c9c5dd6b26462ab33a3310c525659a7ef33ef1ade`,
    licence: "none stated (research data)",
    redistributable: true,
    citation: "Thai et al. (2020), Using BibTeX to Automatically Generate Labeled Data for CFE",
  }),
  dataset({
    name: "wnut16",
    title: "WNUT-16 Twitter NER",
    folder: "wnut16",
    ...conll("word ner", "\t", "IOB2"),
    source: (file) => gh(...TWITTER_NLP, `data/annotated/wnut16/data/${file}`),
    splits: `
      train train 354162 2394 46469
        5ec9db29c87fbf424860688fff08a485f6112137b930bb4799288399db9e153d
      dev   dev   137311 1000 16261
        d555eff2d24f05b032a17d892dda766f8e4dc0436404c17f4c1c6841472928fd
      test  test       - 3850 61908
        4d96d1908d4fdda27f3738bfb83d26e9b9e0996e22d8e0788de7c11c25af6896`,
    licence: "GPL-3.0 (repository licence)",
    redistributable: true,
    citation: "Strauss et al. (2016), Results of the WNUT16 Named Entity Recognition Shared Task",
  }),
  dataset({
    name: "wnut17",
    title: "WNUT-17 Emerging and Rare Entities",
    folder: "wnut17",
    ...conll("word ner", "\t", "IOB2"),
    source: (file) => gh(...WNUT17, file),
    splits: `
      train wnut17train.conll       493781 3394 62730
        731820e13f71af324c6b55a1575ec2ce59fbaa2a0806f8f0400b98d56cd6a7a5
      dev   emerging.dev.conll      114749 1009 15733
        e053b752b8155113ca66e7db08af5f2f5f43ab993694e4774f1ec5bad42312d8
      test  emerging.test.annotated      - 1287 23394
        2aa79b764e56ec9264a1b30fdd9b70195bd00ff400b62edd8f399d5f13c178f0`,
    licence: "CC BY 4.0",
    redistributable: true,
    citation: "Derczynski et al. (2017), Results of the WNUT2017 Shared Task",
  }),
  dataset({
    name: "cora-references",
    title: "Cora references (McCallum et al.), 500 tagged citations",
    folder: "cora",
    format: DatasetFormat.inlineFlat,
    formatOptions: { scheme: "inline", recordMarker: "<NEWREFERENCE>" },
    source: (file) =>
      gh("timvieira/crf", "af9dd46df11c5c92e7ddd4bbbbe25c5f5cd174d3", `data/${file}`),
    splits: `
      all tagged_references.txt 141335 500 11609
        6911d43100cb315b730b53a4bc4dbd29da49ae3466c511c23ce508fb9d42dec6`,
    customSplits: [
      { split: "train", start: 0, count: 350 },
      { split: "test", start: 350, count: 150 },
    ],
    licence: "none stated (research data)",
    redistributable: true,
    citation: "Peng & McCallum (2004), Accurate Information Extraction from Research Papers",
  }),
  dataset({
    name: "cora-headers",
    title: "Cora research-paper headers (Seymore, McCallum & Rosenfeld, 1999)",
    folder: "cora",
    format: DatasetFormat.inlineFlat,
    formatOptions: { scheme: "inline", recordMarker: "<NEW_HEADER>" },
    source: (file) =>
      gh("iesl/paper-header", "17b206927ea01156035d6da2a65b64dacef82eaa", `data/${file}`),
    splits: `
      all tagged_headers.txt 1262464 935 155505
        561cc0f51c9b68d2c498abea97a01fd003f7bd6f815f391ea0d13226926e3023`,
    customSplits: [
      { split: "train", start: 0, count: 500 },
      { split: "test", start: 500, count: 435 },
    ],
    licence: "none stated (research data)",
    redistributable: true,
    citation: "Seymore, McCallum & Rosenfeld (1999), Learning HMM Structure for IE",
  }),
  dataset({
    name: "twitter-ritter2011",
    title: "Ritter et al. (2011) annotated tweets: NER",
    folder: "twitter_ritter2011",
    ...conll("word ner", "\t", "IOB2"),
    source: (file) => gh(...TWITTER_NLP, `data/annotated/${file}`),
    splits: `
      all ner.txt 356556 2394 46469
        8573ac2f0b9bd533488332954a3db9958da4789bc4f8c26de10bb346e96e5390`,
    customSplits: [
      { split: "train", start: 0, count: 1796 },
      { split: "dev", start: 1796, count: 598 },
    ],
    licence: "GPL-3.0 (repository licence)",
    redistributable: true,
    citation: "Ritter et al. (2011), Named Entity Recognition in Tweets",
  }),
  // SOURCE.md publishes no SHA-256 for CoNLL-2002 testb: the archive's MD5 vouches for a download.
  dataset({
    name: "conll2002-es",
    title: "CoNLL-2002 Spanish NER (Tjong Kim Sang, 2002)",
    folder: "conll2002",
    ...conll("word pos ner", " ", "IOB2"),
    source: NLTK_CONLL2002,
    splits: `
      train esp.train 2970825 8323 264715
        a20d95cab7d88a19a86f8c1ad6329325c99fbd9529ed978cbd7e31d4b01b4008
      dev   esp.testa  594058 1915  52923
        85c17793b77881c53d19017d9d0f1e6fb98b7ddcab54a5f24b05ed1793103c87
      test  esp.testb       - 1517  51533
        -`,
    licence: CONLL2002_LICENCE,
    redistributable: false,
    citation: CONLL2002_CITATION,
  }),
  dataset({
    name: "conll2002-nl",
    title: "CoNLL-2002 Dutch NER (Tjong Kim Sang, 2002)",
    folder: "conll2002",
    ...conll("word pos ner", " ", "IOB2", "-DOCSTART-"),
    source: NLTK_CONLL2002,
    splits: `
      train ned.train 2377174 15806 202644
        0a419dcb356b62c8cff38515675550b3d5dbea9f45a1c4956328dbd5cc7fcdbc
      dev   ned.testa  450785  2895  37687
        51259d4bfe52462f211d3d0b67173a7ecbfa296e199f6c6bd0895f4c78155057
      test  ned.testb       -  5195  68875
        -`,
    licence: CONLL2002_LICENCE,
    redistributable: false,
    citation: CONLL2002_CITATION,
  }),
];

/** Names of all registered datasets. */
export function datasetNames(catalog: readonly DatasetInfo[] = DATASETS): string[] {
  return catalog.map((d) => d.name);
}

/** The registered dataset called `name`; throws a clear error listing the known names. */
export function getDataset(name: string, catalog: readonly DatasetInfo[] = DATASETS): DatasetInfo {
  const found = catalog.find((d) => d.name === name);
  if (found === undefined) {
    const known = datasetNames(catalog).join(", ");
    throw new UnknownDatasetError(`unknown dataset "${name}"; known: ${known}`);
  }
  return found;
}

/** The split `split` of dataset `name`; throws a clear error listing its splits. */
export function getSplit(
  name: string,
  split: string,
  catalog: readonly DatasetInfo[] = DATASETS,
): DatasetSplitInfo {
  const dataset = getDataset(name, catalog);
  const found = dataset.splits.find((s) => s.name === split);
  if (found === undefined) {
    const known = dataset.splits.map((s) => s.name).join(", ");
    throw new UnknownDatasetError(
      `dataset "${name}" has no split "${split}"; its splits: ${known}`,
    );
  }
  return found;
}

export class UnknownDatasetError extends LagrangeError {
  override readonly name = "UnknownDatasetError";
  constructor(message: string) {
    super("usage", message);
  }
}
