/**
 * The Text section: a paragraph in, named entities out, tagged in the page by the shipped compact
 * English model (or one the reader uploads) through `taggerFromModel` + `tagText`, the same chain
 * tagger `lagrange tag --format text` runs in Node.
 */
import { loadModelFromBytes } from "@lagrange/chain-crf";
import {
  type SequenceTagger,
  type TaggedText,
  type TextEntity,
  taggerFromModel,
  tagText,
} from "@lagrange/recipes/browser";
import { byId, el, fetchBytes, messageOf } from "./render.js";

const SHIPPED_MODEL = "ner-en.lgm.gz";
const PROVENANCE = "ner-en.json";

/** A paragraph written in the manner of a Reuters dispatch: people, organisations and places. */
export const TEXT_EXAMPLE =
  "FRANKFURT, March 4 (Reuters) - Siemens said on Tuesday it would move 2,000 jobs from its plant in Munich to Poland, and chief executive Martin Hoffmann told reporters in Berlin that the European Commission had been informed. A spokesman for the IG Metall union, Klaus Weber, said workers would protest outside the company's offices. Shares in Siemens fell 3 percent in Frankfurt, while rival General Electric rose in New York.";

/** What `public/ner-en.json` records of the shipped model; every field may be missing. */
interface TextProvenance {
  readonly data?: unknown;
  readonly commands?: unknown;
  readonly devF1?: unknown;
  readonly bytes?: unknown;
  readonly sha256?: unknown;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  PER: "person",
  ORG: "organisation",
  LOC: "location",
  MISC: "miscellaneous",
};

/** One background per CoNLL type (dark text on each, ≥ 7:1); the type is always written too. */
const TYPE_COLOURS: Readonly<Record<string, string>> = {
  PER: "#fde2c8",
  ORG: "#d6ecff",
  LOC: "#dff5d8",
  MISC: "#f6dcf3",
};

/** Bytes that start with gzip's magic number are gunzipped in the page (no library). */
async function gunzipped(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const score = (x: number | null) => (x === null ? "—" : x.toFixed(3));

/** The text with each entity as a <mark> that writes its type and score inside the box. */
function renderMarked(text: string, entities: readonly TextEntity[]): HTMLElement {
  const out: (Node | string)[] = [];
  let at = 0;
  for (const e of entities) {
    if (e.start > at) out.push(text.slice(at, e.start));
    const type = TYPE_NAMES[e.type] ?? e.type;
    out.push(
      el(
        "mark",
        {
          class: "entity",
          "data-type": e.type,
          "data-start": String(e.start),
          "data-end": String(e.end),
          "data-score": e.score === null ? "" : String(e.score),
          style: `background:${TYPE_COLOURS[e.type] ?? "#ececec"}`,
          title: `${type}, probability ${score(e.score)}`,
        },
        [
          el("span", { class: "entity-text" }, [text.slice(e.start, e.end)]),
          el("span", { class: "entity-tag" }, [`${e.type} ${score(e.score)}`]),
        ],
      ),
    );
    at = e.end;
  }
  if (at < text.length) out.push(text.slice(at));
  return el("p", { class: "marked" }, out);
}

function renderTable(entities: readonly TextEntity[]): HTMLElement {
  const caption = el("caption", {}, [
    `${entities.length} entit${entities.length === 1 ? "y" : "ies"}; the score is the probability of exactly this span and type under the chain CRF.`,
  ]);
  const head = el("thead", {}, [
    el(
      "tr",
      {},
      ["Text", "Type", "Start–end", "Score"].map((h) => el("th", { scope: "col" }, [h])),
    ),
  ]);
  const body = el(
    "tbody",
    {},
    entities.map((e) =>
      el("tr", {}, [
        el("td", {}, [e.text]),
        el("td", {}, [`${e.type} (${TYPE_NAMES[e.type] ?? e.type})`]),
        el("td", { class: "num" }, [`${e.start}–${e.end}`]),
        el("td", { class: "num" }, [score(e.score)]),
      ]),
    ),
  );
  return el("table", { class: "entities", id: "entity-table" }, [caption, head, body]);
}

/** The provenance line: what `ner-en.json` has, nothing when it is absent. */
function provenanceLine(p: TextProvenance | undefined): (Node | string)[] {
  if (p === undefined) return [];
  const parts: (Node | string)[] = [];
  const plain = (x: unknown) => (typeof x === "string" ? x : JSON.stringify(x));
  if (p.data !== undefined) parts.push(` Trained on ${plain(p.data)}.`);
  if (typeof p.devF1 === "number") parts.push(` Entity F1 on dev: ${p.devF1}.`);
  else if (p.devF1 !== undefined) parts.push(` Entity F1 on dev: ${plain(p.devF1)}.`);
  if (typeof p.bytes === "number") parts.push(` ${(p.bytes / 1e6).toFixed(2)} MB.`);
  if (typeof p.sha256 === "string") parts.push(" SHA-256 ", el("code", {}, [p.sha256]), ".");
  const commands: readonly unknown[] = Array.isArray(p.commands) ? p.commands : [];
  if (commands.length > 0) {
    parts.push(
      " Built by ",
      ...commands.flatMap((c, i) => [
        ...(i === 0 ? [] : [i === commands.length - 1 ? " then " : ", "]),
        el("code", {}, [plain(c)]),
      ]),
      ".",
    );
  }
  return parts;
}

/** Wires the Text section: the shipped model is fetched on the first Tag, then kept. */
export function setUpTextTagging(): void {
  const form = byId<HTMLFormElement>("text-form");
  const input = byId<HTMLTextAreaElement>("text-input");
  const info = byId<HTMLParagraphElement>("text-model-info");
  const errorBox = byId<HTMLParagraphElement>("text-error");
  const section = byId<HTMLElement>("text-section");
  input.value = TEXT_EXAMPLE;
  let tagger: { tagger: SequenceTagger; source: string } | undefined;
  let busy = false;

  const showError = (message: string | null) => {
    errorBox.hidden = message === null;
    errorBox.textContent = message ?? "";
  };

  /** Reads a model (gzipped or not) and builds its tagger; a bad file throws the package's error. */
  const open = async (bytes: Uint8Array, source: string, provenance?: TextProvenance) => {
    const started = performance.now();
    const model = loadModelFromBytes(await gunzipped(bytes), source);
    const built = taggerFromModel(model, { modelName: source });
    const ms = performance.now() - started;
    tagger = { tagger: built, source };
    info.replaceChildren(
      `Model: ${source} (${model.numLabels} labels, preset ${model.preset ?? "none"}; read in ${ms.toFixed(0)} ms).`,
      ...provenanceLine(provenance),
    );
    return built;
  };

  const shipped = async () => {
    info.textContent = `Loading the English model ${SHIPPED_MODEL}…`;
    const bytes = await fetchBytes(SHIPPED_MODEL);
    const provenance = await fetch(PROVENANCE)
      .then((r) => (r.ok ? (r.json() as Promise<TextProvenance>) : undefined))
      .catch(() => undefined);
    return open(bytes, SHIPPED_MODEL, provenance);
  };

  const tag = async () => {
    if (busy) return;
    busy = true;
    showError(null);
    try {
      const current = tagger?.tagger ?? (await shipped());
      const text = input.value;
      const started = performance.now();
      const tagged: TaggedText = await tagText(current, text, { source: "the text" });
      const ms = performance.now() - started;
      const tokens = tagged.sentences.reduce((n, s) => n + s.tokens.length, 0);
      byId("text-summary").replaceChildren(
        el("span", { id: "text-ms", "data-ms": ms.toFixed(3), "data-tokens": String(tokens) }, [
          `${tagged.sentences.length} sentence${tagged.sentences.length === 1 ? "" : "s"}, ${tokens} tokens, ${tagged.entities.length} entities, tagged in ${ms.toFixed(1)} ms (tokenising, features, Viterbi and marginals).`,
        ]),
      );
      byId("text-marked").replaceChildren(renderMarked(text, tagged.entities));
      byId("text-table").replaceChildren(renderTable(tagged.entities));
      section.dataset.tagged = String(Number(section.dataset.tagged ?? 0) + 1);
    } catch (error) {
      showError(messageOf(error));
      if (tagger === undefined) info.textContent = "No model loaded.";
    } finally {
      busy = false;
    }
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void tag();
  });
  byId<HTMLInputElement>("text-model-file").addEventListener("change", (event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (file === undefined) return;
    void (async () => {
      showError(null);
      try {
        await open(new Uint8Array(await file.arrayBuffer()), file.name);
        await tag();
      } catch (error) {
        // The model loaded before stays.
        showError(messageOf(error));
      }
    })();
  });
}
