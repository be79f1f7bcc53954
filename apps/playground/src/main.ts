import { type CrfModel, loadModelFromBytes } from "@lagrange/chain-crf";
import { type ConstraintsFileEntry, parseConstraintsFile } from "@lagrange/constraint-templates";
import { modelScheme, standardDecoders } from "@lagrange/recipes/browser";
import { EXAMPLES } from "./examples.js";
import {
  type CitationInspection,
  CitationInspector,
  constraintRules,
  type DecoderChoice,
  decoderChoices,
} from "./inspect.js";
import {
  byId,
  el,
  fetchBytes,
  messageOf,
  renderChart,
  renderFired,
  renderHeatmap,
  renderLabelling,
} from "./render.js";
import { setUpTextTagging } from "./text.js";

const SHIPPED_MODEL = "citation.model";
const SHIPPED_CONSTRAINTS = "citation.constraints.json";
const PROVENANCE = "model.json";

interface Provenance {
  readonly corpus: string;
  readonly trainCitations: number;
  readonly devF1: { readonly viterbi: number; readonly softDD: number };
  readonly constraints: number;
  readonly modelBytes: number;
}

const form = byId<HTMLFormElement>("decode-form");
const citation = byId<HTMLTextAreaElement>("citation");
const example = byId<HTMLSelectElement>("example");
const decoderList = byId<HTMLDivElement>("decoder-list");
const stepList = byId<HTMLDivElement>("step-list");
const stepHint = byId<HTMLParagraphElement>("step-hint");
const modelInfo = byId<HTMLParagraphElement>("model-info");
const errorBox = byId<HTMLParagraphElement>("error");
const allLabels = byId<HTMLInputElement>("all-labels");

const registry = standardDecoders();
const state: {
  model?: CrfModel;
  modelSource: string;
  constraints?: readonly ConstraintsFileEntry[] | undefined;
  constraintsSource: string;
  choices: DecoderChoice[];
  /** The decoder that decodes: the one asked for when it is usable, else a stand-in. */
  decoder: string;
  /**
   * The decoder the reader picked (soft-dd at first): kept across uploads, and decoding again as
   * soon as it is usable (a model upload can drop the constraints until a constraints file).
   */
  wanted: string;
  /** The master's step for dual-decomposition decoders; kept across decoders and uploads. */
  step: string;
  inspectors: Map<string, CitationInspector>;
  last?: CitationInspection;
} = {
  modelSource: "",
  constraintsSource: "",
  choices: [],
  decoder: "soft-dd",
  wanted: "soft-dd",
  step: "subgradient",
  inspectors: new Map(),
};

function showError(message: string | null): void {
  errorBox.hidden = message === null;
  errorBox.textContent = message ?? "";
}

function setModel(model: CrfModel, source: string): void {
  state.model = model;
  state.modelSource = source;
  state.inspectors.clear();
}

/** Parses constraints against the current model's labels; a bad file throws and changes nothing. */
function setConstraints(text: string | undefined, source: string): void {
  const entries =
    text === undefined || state.model === undefined
      ? undefined
      : parseConstraintsFile(text, {
          source,
          expectedLabels: state.model.labels.names(),
          scheme: modelScheme(state.model),
        }).entries;
  state.inspectors.clear();
  state.constraints = entries;
  state.constraintsSource = entries === undefined ? "none" : source;
}

function describeSources(provenance: Provenance | undefined): void {
  const model = state.model!;
  let constraints = "no constraints";
  if (state.constraints !== undefined) {
    // The count the decoders get, as under "Constraints that fired": zero penalties are left out.
    const rules = constraintRules(state.constraints);
    const zero =
      rules.zeroPenalty === 0
        ? ""
        : ` (its other ${rules.zeroPenalty} learned penalty 0, which cannot change a labelling, and are left out)`;
    constraints = `${rules.decoded} constraints from ${state.constraintsSource}${zero}`;
  }
  const shipped =
    provenance === undefined || state.modelSource !== SHIPPED_MODEL
      ? ""
      : ` Trained on ${provenance.corpus} (${provenance.trainCitations} citations); field F1 on held-out dev citations: Viterbi ${provenance.devF1.viterbi}%, Soft-DD ${provenance.devF1.softDD}%.`;
  modelInfo.textContent = `Model: ${state.modelSource} (${model.numLabels} labels, preset ${model.preset ?? "none"}); ${constraints}.${shipped}`;
}

/**
 * Lists the decoders for the files loaded now. The reader's decoder decodes when it is usable;
 * otherwise a stand-in does, and the returned notice says which and why (never silently).
 */
async function refreshDecoders(): Promise<string | null> {
  state.choices = await decoderChoices(registry, { constraints: state.constraints !== undefined });
  const usable = state.choices.filter((c) => c.usable).map((c) => c.name);
  let notice: string | null = null;
  if (usable.includes(state.wanted)) state.decoder = state.wanted;
  else {
    state.decoder = usable.includes("soft-dd") ? "soft-dd" : (usable[0] ?? "viterbi");
    const why = state.choices.find((c) => c.name === state.wanted)?.note;
    notice = `${state.wanted} cannot decode with these files${why == null ? "" : ` (${why})`}: ${state.decoder} decodes until it can`;
  }
  decoderList.replaceChildren(
    ...state.choices.map((choice) => {
      const id = `decoder-${choice.name}`;
      const input = el("input", {
        type: "radio",
        name: "decoder",
        id,
        value: choice.name,
        "aria-describedby": `${id}-note`,
      });
      input.checked = choice.name === state.decoder;
      input.disabled = !choice.usable;
      input.addEventListener("change", () => {
        state.decoder = choice.name;
        state.wanted = choice.name;
        renderSteps();
        void decode();
      });
      const note =
        choice.note === null ? choice.description : `${choice.description} — ${choice.note}`;
      return el("div", { class: `decoder${choice.usable ? "" : " disabled"}` }, [
        input,
        el("label", { for: id }, [el("strong", {}, [choice.name])]),
        el("span", { id: `${id}-note`, class: "note" }, [
          choice.usable ? note : `Unavailable: ${note}`,
        ]),
      ]);
    }),
  );
  renderSteps();
  return notice;
}

/** What each step of the master does, for the page's reader. */
const STEP_NOTES: Readonly<Record<string, { title: string; note: string }>> = {
  subgradient: {
    title: "Subgradient",
    note: "projected subgradient on the dual: each slave solves a MAP problem, the multipliers move by a shrinking step",
  },
  ad3: {
    title: "AD3",
    note: "augmented Lagrangian (Martins et al. 2015): each slave solves a small quadratic problem, under a penalty η that adapts",
  },
};

/** The steps of the chosen decoder (its `step` option's choices); none for a decoder without one. */
function chosenSteps(): readonly string[] {
  return state.choices.find((c) => c.name === state.decoder)?.steps ?? [];
}

/**
 * The step choice: every step any decoder declares, enabled when the chosen decoder runs the
 * dual-decomposition master. The chosen step stays when the decoder or the files change.
 */
function renderSteps(): void {
  const all = [...new Set(state.choices.flatMap((c) => c.steps))];
  const usable = chosenSteps();
  if (usable.length > 0 && !usable.includes(state.step)) state.step = usable[0]!;
  stepHint.textContent =
    usable.length > 0
      ? `How ${state.decoder}'s dual-decomposition master moves its multipliers.`
      : `${state.decoder} does not run the dual-decomposition master: it has no step to choose.`;
  stepList.replaceChildren(
    ...all.map((step) => {
      const id = `step-${step}`;
      const input = el("input", {
        type: "radio",
        name: "step",
        id,
        value: step,
        "aria-describedby": `${id}-note`,
      });
      input.checked = step === state.step;
      input.disabled = !usable.includes(step);
      input.addEventListener("change", () => {
        state.step = step;
        void decode();
      });
      const known = STEP_NOTES[step];
      return el("div", { class: `decoder${input.disabled ? " disabled" : ""}` }, [
        input,
        el("label", { for: id }, [el("strong", {}, [known?.title ?? step])]),
        el("span", { id: `${id}-note`, class: "note" }, [known?.note ?? step]),
      ]);
    }),
  );
}

function inspector(): CitationInspector {
  const step = chosenSteps().includes(state.step) ? state.step : undefined;
  const key = step === undefined ? state.decoder : `${state.decoder} ${step}`;
  let found = state.inspectors.get(key);
  if (found === undefined) {
    found = new CitationInspector({
      model: state.model!,
      registry,
      decoder: state.decoder,
      ...(step === undefined ? {} : { decoderOptions: { step } }),
      ...(state.constraints === undefined ? {} : { constraints: state.constraints }),
    });
    state.inspectors.set(key, found);
  }
  return found;
}

const figure = (x: number | undefined) =>
  x === undefined ? "none" : Number.isFinite(x) ? x.toFixed(3) : x > 0 ? "+∞" : "−∞";

function render(result: CitationInspection, totalMs: number): void {
  const decoder =
    result.step === null
      ? result.decoder
      : `${result.decoder}, ${STEP_NOTES[result.step]?.title ?? result.step} step`;
  const constrainedTitle =
    result.constraintCount > 0 ? `Constrained (${decoder})` : `${decoder} (no constraints)`;
  const summary = byId<HTMLParagraphElement>("summary");
  summary.replaceChildren(
    `${result.tokens.length} tokens. ${decoder}: ${result.iterations} iteration${result.iterations === 1 ? "" : "s"}${result.traced ? "" : " (it reports no objective per iteration: the chart shows its final one)"}, ${result.certified ? "certified optimal" : `status ${result.status}`}. `,
    el(
      "span",
      {
        id: "decode-stats",
        "data-step": result.step ?? "",
        "data-iterations": String(result.iterations),
        "data-certified": String(result.certified),
        "data-dual": String(result.dual ?? ""),
        "data-primal": String(result.primal),
        "data-gap": String(result.gap),
      },
      [`Dual ${figure(result.dual)}, primal ${figure(result.primal)}, gap ${figure(result.gap)}. `],
    ),
    el("span", { id: "decode-ms", "data-ms": result.decodeMs.toFixed(3) }, [
      `Decoded in ${result.decodeMs.toFixed(2)} ms`,
    ]),
    el("span", { id: "total-ms", "data-ms": totalMs.toFixed(3) }, [
      ` (features, scores, both decodings and marginals: ${totalMs.toFixed(2)} ms).`,
    ]),
  );
  byId("labellings").replaceChildren(
    renderLabelling("Viterbi (the chain alone)", result.tokens, result.viterbi),
    renderLabelling(constrainedTitle, result.tokens, result.constrained),
  );
  byId("fired").replaceChildren(renderFired(result.fired, result.constraintCount, result.rules));
  byId("chart").replaceChildren(...renderChart(result.objective, decoder));
  byId("heatmap").replaceChildren(renderHeatmap(result, allLabels.checked));
}

/** Decodes the citation; `keepNotice`: a file handler's message about what it dropped stays. */
async function decode(keepNotice = false): Promise<void> {
  if (state.model === undefined) return;
  try {
    const started = performance.now();
    const result = inspector().inspect(citation.value);
    const totalMs = performance.now() - started;
    state.last = result;
    render(result, totalMs);
    if (!keepNotice) showError(null);
    document.body.dataset.decoded = String(Number(document.body.dataset.decoded ?? 0) + 1);
  } catch (error) {
    showError(messageOf(error));
  }
}

/** The last constraints file read (shipped or uploaded): re-checked against a new model. */
let constraintsText: string | undefined;

async function readFileInput(input: HTMLInputElement): Promise<File | undefined> {
  return input.files?.[0] ?? undefined;
}

async function onModelFile(input: HTMLInputElement): Promise<void> {
  const file = await readFileInput(input);
  if (file === undefined) return;
  showError(null);
  try {
    const model = loadModelFromBytes(new Uint8Array(await file.arrayBuffer()), file.name);
    const previous = state.constraints;
    setModel(model, file.name);
    const notices: string[] = [];
    // The loaded constraints stay when they name this model's labels.
    try {
      if (previous !== undefined) setConstraints(constraintsText, state.constraintsSource);
    } catch (error) {
      setConstraints(undefined, "none");
      notices.push(`constraints dropped: ${messageOf(error)}`);
    }
    describeSources(undefined);
    const standIn = await refreshDecoders();
    if (standIn !== null) notices.push(standIn);
    showError(notices.length === 0 ? null : notices.join("; "));
    await decode(true);
  } catch (error) {
    showError(messageOf(error));
  }
}

async function onConstraintsFile(input: HTMLInputElement): Promise<void> {
  const file = await readFileInput(input);
  if (file === undefined) return;
  showError(null);
  try {
    const text = await file.text();
    setConstraints(text, file.name);
    constraintsText = text;
    describeSources(undefined);
    const standIn = await refreshDecoders();
    showError(standIn);
    await decode(true);
  } catch (error) {
    showError(`${messageOf(error)} (the constraints loaded before stay)`);
  }
}

async function loadShipped(): Promise<void> {
  const [bytes, text, provenance] = await Promise.all([
    fetchBytes(SHIPPED_MODEL),
    fetch(SHIPPED_CONSTRAINTS).then((r) => r.text()),
    fetch(PROVENANCE).then((r) => r.json() as Promise<Provenance>),
  ]);
  setModel(loadModelFromBytes(bytes, SHIPPED_MODEL), SHIPPED_MODEL);
  setConstraints(text, SHIPPED_CONSTRAINTS);
  constraintsText = text;
  describeSources(provenance);
  await refreshDecoders();
}

for (const [k, text] of EXAMPLES.entries()) {
  example.append(
    el("option", { value: String(k) }, [text.length > 90 ? `${text.slice(0, 87)}…` : text]),
  );
}
citation.value = EXAMPLES[0]!;
example.addEventListener("change", () => {
  citation.value = EXAMPLES[Number(example.value)]!;
  void decode();
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void decode();
});
allLabels.addEventListener("change", () => {
  if (state.last !== undefined)
    byId("heatmap").replaceChildren(renderHeatmap(state.last, allLabels.checked));
});
byId<HTMLInputElement>("model-file").addEventListener("change", (e) => {
  void onModelFile(e.currentTarget as HTMLInputElement);
});
byId<HTMLInputElement>("constraints-file").addEventListener("change", (e) => {
  void onConstraintsFile(e.currentTarget as HTMLInputElement);
});
byId<HTMLButtonElement>("reset-files").addEventListener("click", () => {
  void loadShipped().then(
    () => decode(),
    (error: unknown) => showError(messageOf(error)),
  );
});

setUpTextTagging();
loadShipped().then(
  async () => {
    await decode();
    document.body.dataset.ready = "true";
  },
  (error: unknown) => {
    showError(`cannot load the shipped model: ${messageOf(error)}`);
    document.body.dataset.ready = "true";
  },
);
