// A Lagrange plug-in: a gazetteer slave that knows words of publication venues, and a decoder,
// `my-dd`, that decodes the citation CRF together with it by dual decomposition.
//
//   lagrange tag --model cite.model --data umass-citations:dev \
//     --plugin examples/plugins/venue-gazetteer.mjs --decoder my-dd
//
// A plug-in imports nothing: the host hands it the app's registry and its copy of @lagrange/core.

/** Words that start or sit inside venue names, and how much they vouch for a venue label. */
const VENUE_WORDS = new Map([
  ["Proceedings", 1.5],
  ["Proc.", 1.5],
  ["Journal", 1.5],
  ["Conference", 1],
  ["Symposium", 1],
  ["Workshop", 1],
  ["Transactions", 1],
]);

/** @param {import("@lagrange/core").PluginHost} host */
export default function venueGazetteer({ registry, core }) {
  registry.addSlave({
    name: "venue-gazetteer",
    description: "rewards venue labels on tokens that are known venue words",
    create({ n, L, labels, tokens }) {
      // The bonus of label t at token i: the word's weight when t lies inside a venue segment.
      const inVenue = labels.map((label) => /^[BI]-venue(\/|$)/.test(label));
      const bonus = new Float64Array(n * L);
      for (let i = 0; i < n; i++) {
        const weight = VENUE_WORDS.get(tokens[i]) ?? 0;
        for (let t = 0; t < L; t++) if (inVenue[t]) bonus[i * L + t] = weight;
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
