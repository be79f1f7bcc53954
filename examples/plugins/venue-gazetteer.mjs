// A Lagrange plug-in: a gazetteer slave that knows words which name a citation's venue fields
// (publishers, series, theses, preprints, proceedings), and a decoder, `my-dd`, that decodes the
// citation CRF together with it by dual decomposition.
//
//   lagrange tag --model cite.model --data umass-citations:dev \
//     --plugin examples/plugins/venue-gazetteer.mjs --decoder my-dd
//
// A plug-in imports nothing: the host hands it the app's registry and its copy of @lagrange/core.

/**
 * Words and the field they name, taken from UMass training citations where the word lies in that
 * field at least nine times in ten ("Springer" is a publisher, "preprint" a tech report).
 */
const VENUE_WORDS = new Map(
  /** @type {[string, string][]} */ ([
    ...["Springer", "Springer-Verlag", "Verlag", "Kluwer", "Wiley", "Elsevier", "Academic"].map(
      (word) => [word, "publisher"],
    ),
    ...["Addison-Wesley", "McGraw-Hill", "Pergamon", "Press"].map((word) => [word, "publisher"]),
    ...["Lecture", "LNCS"].map((word) => [word, "series"]),
    ...["thesis", "Thesis", "Ph.D", "PhD"].map((word) => [word, "thesis"]),
    ...["preprint", "Preprint"].map((word) => [word, "tech"]),
    ...["Proceedings", "Symposium", "Workshop"].map((word) => [word, "booktitle"]),
    ...["Journal", "Transactions"].map((word) => [word, "journal"]),
  ]),
);

/** How much a listed word vouches for its field: enough to overrule a CRF that is unsure. */
const WEIGHT = 4;

/** @param {import("@lagrange/core").PluginHost} host */
export default function venueGazetteer({ registry, core }) {
  registry.addSlave({
    name: "venue-gazetteer",
    description: "rewards the field a listed venue word names (publisher, series, thesis, …)",
    create({ n, L, labels, tokens }) {
      // The bonus of label t at token i: WEIGHT when t's innermost field is the one token i's
      // word names (UMass labels are paths, `I-venue/B-publisher`; flat ones, `B-publisher`).
      const field = labels.map((label) => /(?:^|\/)[BI]-([^/]+)$/.exec(label)?.[1]);
      const bonus = new Float64Array(n * L);
      for (let i = 0; i < n; i++) {
        const named = VENUE_WORDS.get(tokens[i]);
        if (named === undefined) continue;
        for (let t = 0; t < L; t++) if (field[t] === named) bonus[i * L + t] = WEIGHT;
      }
      // Tokens do not interact in this slave, so its exact maximiser is an argmax per token.
      // The result is allocated once: the master calls maximize every iteration.
      const result = { labels: new Int32Array(n), value: 0 };
      const slave = core.defineSlave({
        name: "venue-gazetteer",
        n,
        L,
        maximize(adjustment) {
          result.value = 0;
          for (let i = 0; i < n; i++) {
            let best = 0;
            for (let t = 1; t < L; t++) {
              if (
                bonus[i * L + t] + adjustment[i * L + t] >
                bonus[i * L + best] + adjustment[i * L + best]
              ) {
                best = t;
              }
            }
            result.labels[i] = best;
            result.value += bonus[i * L + best] + adjustment[i * L + best];
          }
          return result;
        },
        score(y) {
          let total = 0;
          for (let i = 0; i < n; i++) total += bonus[i * L + y[i]];
          return total;
        },
      });
      return { slave };
    },
  });

  registry.addDecoder({
    name: "my-dd",
    description: "the chain CRF and the venue gazetteer, agreeing by dual decomposition",
    accepts: { constraints: true, slaves: true },
    withSlaves: ["venue-gazetteer"],
    create: (context) =>
      core.dualDecompositionDecoder(
        "my-dd",
        { stepRule: { kind: "polyak" }, maxIterations: 100 },
        context.chainSlaves(),
      ),
  });
}
