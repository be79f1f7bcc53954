import { type Corpus, convertScheme, type SchemeName } from "@lagrange/datasets";

/**
 * A corpus with its gold labels rewritten from its own chunk scheme into `scheme` (CoNLL-2003's
 * IOB1 as BIOES, say): the same chunks, another encoding. The benches' BIOES datasets.
 */
export function relabelled(corpus: Corpus, scheme: SchemeName): Corpus {
  const from = corpus.scheme as SchemeName;
  return {
    ...corpus,
    scheme,
    sentences: corpus.sentences.map((s) =>
      s.labels === undefined ? s : { ...s, labels: convertScheme(s.labels, from, scheme) },
    ),
  };
}
