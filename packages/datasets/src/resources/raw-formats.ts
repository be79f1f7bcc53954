/**
 * Words out of the annotated formats of the raw-text corpora (see `RawTextFormat`): pure functions
 * of a line or a decoded file, so they are tested on small strings. Annotations (tags, lemmas,
 * trees) are dropped; what remains are tokens as they appear in the text.
 */

/**
 * `word/tag` tokens (Brown): the word is everything before the last `/`, since words may hold a
 * slash (`1/2/cd`, `and/or/cc`, `//in` is the word `/`) and tags may be compounds (`np$`,
 * `nn-tl`, `ppss+bem`). A token with no slash (none in Brown) is kept whole.
 */
export function brownLineTokens(line: string): string[] {
  const out: string[] = [];
  for (const piece of line.split(/\s+/)) {
    if (piece === "") continue;
    const slash = piece.lastIndexOf("/");
    out.push(slash > 0 ? piece.slice(0, slash) : piece);
  }
  return out;
}

/**
 * `word_TAG` tokens (MASC): the word is everything before the last `_` (`X_M_L_NNP` is `X_M_L`).
 * MASC's words may hold spaces (`D. C._NN`, `. . ._...`); their parts without a tag become tokens
 * of their own (`D.` `C.`), since a token never holds whitespace.
 */
export function underscoreLineTokens(line: string): string[] {
  const out: string[] = [];
  for (const piece of line.split(/\s+/)) {
    if (piece === "") continue;
    const underscore = piece.lastIndexOf("_");
    out.push(underscore > 0 ? piece.slice(0, underscore) : piece);
  }
  return out;
}

/** CESS-ESP's punctuation leaves whose word is a code: `(Fpa -Fpa- -Fpa-)` is `(`. */
const CESS_PUNCTUATION: Readonly<Record<string, string>> = {
  "-Fpa-": "(",
  "-Fpt-": ")",
  "-fe-": '"',
};
/** Empty elements (elided subjects): `(sn.e-SUJ *0*)`. */
const CESS_EMPTY = /^\*\w*\*$/;

/**
 * Sentences of CESS-ESP bracketed trees (text already decoded from ISO-8859-1). Each tree opens
 * with a line that is a lone `(`; that line, not bracket counting, starts a sentence, since three
 * files of NLTK's copy have unbalanced brackets (a tree left open, a stray `)`). Each leaf — a
 * bracket with none inside, `(TAG word lemma)` — is a word: empty elements (`*0*`) are dropped,
 * punctuation codes become their characters (`-Fpa-` → `(`, `-Fpt-` → `)`, `-fe-` → `"`), and
 * multiword leaves joined with `_` (`Electricité_de_France`, `51_por_ciento`) become separate
 * tokens.
 */
export function cessSentences(text: string): string[][] {
  const sentences: string[][] = [];
  const flush = (segment: string) => {
    const tokens: string[] = [];
    for (const leaf of segment.matchAll(LEAF)) cessLeaf(leaf[1]!, tokens);
    if (tokens.length > 0) sentences.push(tokens);
  };
  let from = 0;
  for (const opening of text.matchAll(TREE_START)) {
    flush(text.slice(from, opening.index));
    from = opening.index;
  }
  flush(text.slice(from));
  return sentences;
}

const LEAF = /\(([^()]*)\)/g;
const TREE_START = /^\([ \t]*\r?$/gm;

/** A bracket with no bracket inside: `TAG word lemma` (or `TAG *0*`, or a bare label). */
function cessLeaf(inner: string, out: string[]): void {
  const fields = inner.trim().split(/\s+/);
  if (fields.length < 2) return;
  const word = fields[1]!;
  if (CESS_EMPTY.test(word)) return;
  const mapped = CESS_PUNCTUATION[word];
  if (mapped !== undefined) {
    out.push(mapped);
    return;
  }
  for (const part of word.split("_")) if (part !== "") out.push(part);
}

const XML_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

/** Decodes XML's five named entities and numeric character references. */
export function decodeXmlEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, body: string) => {
    if (body.startsWith("#x")) return String.fromCodePoint(Number.parseInt(body.slice(2), 16));
    if (body.startsWith("#")) return String.fromCodePoint(Number.parseInt(body.slice(1), 10));
    return XML_ENTITIES[body] ?? whole;
  });
}

const NODE_TAG = /<node\b([^>]*?)\/?>/g;
const ATTRIBUTE = /([\w:-]+)\s*=\s*"([^"]*)"/g;

/**
 * Sentences of an Alpino treebank file: each `<alpino_ds>` element is a sentence; its words are
 * the `word="…"` attributes of its `<node>` elements, put in surface order by their `begin`
 * attribute (the tree's order is not the sentence's), entities decoded. A word with spaces (none in
 * NLTK's copy) would become several tokens.
 */
export function alpinoSentences(text: string): string[][] {
  const sentences: string[][] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf("<alpino_ds", from);
    if (open < 0) break;
    const close = text.indexOf("</alpino_ds>", open);
    const end = close < 0 ? text.length : close;
    const block = text.slice(open, end);
    const words: { begin: number; order: number; word: string }[] = [];
    for (const match of block.matchAll(NODE_TAG)) {
      let word: string | undefined;
      let begin = Number.NaN;
      for (const attribute of match[1]!.matchAll(ATTRIBUTE)) {
        if (attribute[1] === "word") word = decodeXmlEntities(attribute[2]!);
        else if (attribute[1] === "begin") begin = Number(attribute[2]);
      }
      if (word !== undefined) words.push({ begin, order: words.length, word });
    }
    words.sort((a, b) => a.begin - b.begin || a.order - b.order);
    const tokens = words.flatMap((w) => w.word.split(/\s+/).filter((t) => t !== ""));
    if (tokens.length > 0) sentences.push(tokens);
    from = close < 0 ? text.length : close + 12;
  }
  return sentences;
}
