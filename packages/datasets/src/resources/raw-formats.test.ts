import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  alpinoSentences,
  brownLineTokens,
  cessSentences,
  decodeXmlEntities,
  underscoreLineTokens,
} from "./raw-formats.js";

describe("tagged lines", () => {
  it("Brown: the word is what precedes the last slash (slashes in words, compound tags)", () => {
    expect(
      brownLineTokens(
        "\tThe/at Fulton/np-tl County's/nn$-tl 1/2/cd and/or/cc //in I'm/ppss+bem ./.\n",
      ),
    ).toEqual(["The", "Fulton", "County's", "1/2", "and/or", "/", "I'm", "."]);
    expect(brownLineTokens("   ")).toEqual([]);
  });

  it("MASC: the word is what precedes the last underscore; untagged parts of spaced words stand alone", () => {
    expect(underscoreLineTokens("Washington_NNP ,_, D. C._NN X_M_L_NNP . . ._... $49_NN")).toEqual([
      "Washington",
      ",",
      "D.",
      "C.",
      "X_M_L",
      ".",
      ".",
      ".",
      "$49",
    ]);
  });

  it("a brute-force rebuild: tagging random words and reading them back gives the words", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9.,'$/_-]{1,6}$/);
    const tag = fc.stringMatching(/^[a-z$+-]{1,4}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(word, tag), { maxLength: 12 }), (pairs) => {
        const words = pairs.map(([w]) => w);
        expect(
          brownLineTokens(pairs.map(([w, t]) => `${w}/${t.replace(/\//g, "")}`).join(" ")),
        ).toEqual(words);
        expect(
          underscoreLineTokens(pairs.map(([w, t]) => `${w}_${t.replace(/_/g, "")}`).join(" ")),
        ).toEqual(words);
      }),
      { numRuns: 200 },
    );
  });
});

describe("CESS-ESP trees", () => {
  const TREES = `
(
  (S
    (sn.e-SUJ *0*)
    (sn-SUJ
      (espec.ms
        (da0ms0 El el))
      (grup.nom.ms
        (np00000 Electricité_de_France Electricité_de_France)
        (Fpa -Fpa- -Fpa-)
        (np00000 EDF EDF)
        (Fpt -Fpt- -Fpt-)))
    (grup.verb (vmis3s0 anunció anunciar))
    (W jueves [jueves:??/??/??:??.??])
    (Zp 51_por_ciento 51_%)
    (Fe -fe- -fe-)
    (Fp . .)))
(
  (S
    (grup.verb
      (vmis3s0 llegó llegar))
(
  (S
    (Fc , ,)))
    (Fp . .)))
`;

  it("one sentence a tree; leaves give words; empty elements dropped; codes and multiwords mapped", () => {
    expect(cessSentences(TREES)).toEqual([
      [
        "El",
        "Electricité",
        "de",
        "France",
        "(",
        "EDF",
        ")",
        "anunció",
        "jueves",
        "51",
        "por",
        "ciento",
        '"',
        ".",
      ],
      ["llegó"],
      [",", "."],
    ]);
  });

  it("a lone '(' line starts a tree even when the one before was left open or closed too often", () => {
    // The second tree above is left open and the third has a stray ')', as in three NLTK files.
    expect(cessSentences("(\n  (S (a x y)\n(\n  (S (b z w))))\n").length).toBe(2);
  });
});

describe("Alpino XML", () => {
  it("one sentence an <alpino_ds>, words by their begin attribute, entities decoded", () => {
    const xml = `<?xml version="1.0" encoding="ISO-8859-1"?>
<alpino version="1.2">
<alpino_ds version="1.2" id="1">
  <node begin="0" cat="top" end="4" id="0" rel="top">
    <node begin="2" end="3" id="3" pos="noun" rel="hd" root="x" word="&quot;AT&amp;T&quot;"/>
    <node begin="0" end="1" id="1" pos="det" rel="det" root="de" word="De"/>
    <node word="d&apos;r" id="2" begin="1" end="2"/>
    <node begin="3" end="4" id="4" pos="punct" rel="--" root="." word="."/>
  </node>
  <sentence>De d'r "AT&amp;T" .</sentence>
</alpino_ds>
<alpino_ds version="1.2" id="2"><node begin="0" end="1" word="Ja"/></alpino_ds>
</alpino>`;
    expect(alpinoSentences(xml)).toEqual([["De", "d'r", '"AT&T"', "."], ["Ja"]]);
  });

  it("decodeXmlEntities inverts escaping (brute force over random text)", () => {
    const escapeXml = (s: string) =>
      s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (s) => {
        expect(decodeXmlEntities(escapeXml(s))).toBe(s);
      }),
    );
    expect(decodeXmlEntities("&#x00C9;t&#233; &unknown;")).toBe("Été &unknown;");
  });
});
