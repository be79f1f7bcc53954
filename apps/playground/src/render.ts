import type {
  CitationInspection,
  FiredConstraint,
  LabelledSpans,
  ObjectivePoint,
} from "./inspect.js";

type Children = (Node | string)[];

/** A DOM element with attributes and children: the page's one way of building markup. */
/** An element of the page by id (the ids index.html declares). */
export const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** What an error says, for the page's error line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A file served beside the page, as bytes; a failed fetch says which file and its status. */
export async function fetchBytes(path: string): Promise<Uint8Array> {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`cannot fetch ${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  children: Children = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag: string, attributes: Record<string, string>, children: Node[] = []): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/**
 * Light backgrounds under dark text (contrast ≥ 7:1 with #1a1a1a): a field's colour only helps,
 * its name is always written beside it.
 */
const PALETTE = [
  "#fde2c8",
  "#d6ecff",
  "#dff5d8",
  "#f6dcf3",
  "#fff3b8",
  "#e2e0ff",
  "#d2f4f0",
  "#ffdede",
  "#ececec",
];

function colourOf(type: string): string {
  let hash = 0;
  for (const ch of type) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length]!;
}

/**
 * A labelling as nested boxes: each span (authors ⊃ person ⊃ first) is a box with its name, its
 * tokens inside, and its children boxed within it.
 */
export function renderLabelling(title: string, tokens: readonly string[], labelled: LabelledSpans) {
  const { spans } = labelled;
  const row = (start: number, end: number, level: number, parent: string): Children => {
    const out: Children = [];
    let i = start;
    while (i < end) {
      const span = spans.find(
        (s) =>
          s.level === level &&
          s.start === i &&
          s.end <= end &&
          (level === 0 || s.type.startsWith(`${parent}/`)),
      );
      // A space after every token and box: the line may break there.
      if (out.length > 0) out.push(" ");
      if (span === undefined) {
        out.push(el("span", { class: "token" }, [tokens[i]!]));
        i++;
        continue;
      }
      const own = span.type.slice(parent === "" ? 0 : parent.length + 1);
      const top = span.type.split("/")[0]!;
      out.push(
        el(
          "span",
          {
            class: "span",
            "data-type": span.type,
            "data-level": String(level),
            style: `background:${colourOf(level === 0 ? top : span.type)}`,
          },
          [
            el("span", { class: "span-label" }, [own]),
            ...row(span.start, span.end, level + 1, span.type),
          ],
        ),
      );
      i = span.end;
    }
    return out;
  };
  return el("div", { class: "labelling" }, [
    el("h3", {}, [title]),
    el("div", { class: "spans", "data-row": title }, row(0, tokens.length, 0, "")),
    el("details", {}, [
      el("summary", {}, ["Labels per token"]),
      el(
        "ol",
        { class: "token-labels" },
        tokens.map((t, i) => el("li", {}, [el("code", {}, [t]), ` ${labelled.labels[i]!}`])),
      ),
    ]),
  ]);
}

/**
 * The constraints that fired, out of the `instantiated` ones; `rules` (the templates they come
 * from, the count the sources line shows) is named too when it differs.
 */
export function renderFired(
  fired: readonly FiredConstraint[],
  instantiated: number,
  rules: number,
): HTMLElement {
  if (instantiated === 0) {
    return el("p", {}, ["No constraints were given to this decoder."]);
  }
  const of = `${instantiated} constraints${rules === instantiated ? "" : ` (from ${rules} rules)`}`;
  const count = { "data-constraints": String(instantiated), "data-rules": String(rules) };
  if (fired.length === 0) {
    return el("p", count, [`None of the ${of} fired: Viterbi's labelling already keeps them.`]);
  }
  return el("div", count, [
    el("p", {}, [`${fired.length} of the ${of} fired:`]),
    el(
      "ul",
      { class: "fired" },
      fired.map((f) => el("li", { "data-penalty": String(f.penalty ?? "hard") }, [f.sentence])),
    ),
  ]);
}

const format = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "—");

/** The dual (upper bound) and best primal per iteration: a hand-drawn SVG and a table of both. */
export function renderChart(points: readonly ObjectivePoint[], decoder: string): HTMLElement[] {
  const width = 560;
  const height = 220;
  const pad = { left: 64, right: 16, top: 12, bottom: 36 };
  const values = points.flatMap((p) => [p.dual, p.primal]).filter(Number.isFinite);
  if (values.length === 0) {
    return [
      el("figcaption", { id: "chart-summary", class: "no-objective" }, [
        `${decoder} has no finite objective to draw: its labelling breaks the label scheme's transitions (score −∞), which this approximate decoder does not enforce.`,
      ]),
    ];
  }
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (!(high > low)) {
    low -= 1;
    high += 1;
  }
  const last = Math.max(2, points.length);
  const x = (iteration: number) =>
    pad.left + ((iteration - 1) / (last - 1)) * (width - pad.left - pad.right);
  const y = (v: number) => pad.top + ((high - v) / (high - low)) * (height - pad.top - pad.bottom);
  const series = (key: "dual" | "primal", cls: string): SVGElement[] => {
    const finite = points.filter((p) => Number.isFinite(p[key]));
    const line = svg("polyline", {
      class: `line ${cls}`,
      fill: "none",
      points: finite.map((p) => `${x(p.iteration)},${y(p[key])}`).join(" "),
    });
    const dots = finite.map((p) =>
      svg("circle", {
        class: `point ${cls}`,
        cx: String(x(p.iteration)),
        cy: String(y(p[key])),
        r: "3",
      }),
    );
    return [line, ...dots];
  };
  const text = (content: string, attributes: Record<string, string>) => {
    const node = svg("text", attributes);
    node.textContent = content;
    return node;
  };
  const summary = `${decoder}: ${points.length} iteration${points.length === 1 ? "" : "s"}; dual from ${format(points[0]!.dual)} to ${format(points.at(-1)!.dual)}, best primal ${format(points.at(-1)!.primal)}.`;
  const chart = svg(
    "svg",
    {
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-labelledby": "chart-heading chart-summary",
      class: "chart",
    },
    [
      svg("line", {
        class: "axis",
        x1: String(pad.left),
        x2: String(pad.left),
        y1: String(pad.top),
        y2: String(height - pad.bottom),
      }),
      svg("line", {
        class: "axis",
        x1: String(pad.left),
        x2: String(width - pad.right),
        y1: String(height - pad.bottom),
        y2: String(height - pad.bottom),
      }),
      text(format(high), { x: String(pad.left - 6), y: String(pad.top + 4), "text-anchor": "end" }),
      text(format(low), {
        x: String(pad.left - 6),
        y: String(height - pad.bottom),
        "text-anchor": "end",
      }),
      text("1", {
        x: String(pad.left),
        y: String(height - pad.bottom + 16),
        "text-anchor": "middle",
      }),
      text(String(points.length), {
        x: String(x(Math.max(1, points.length))),
        y: String(height - pad.bottom + 16),
        "text-anchor": "middle",
      }),
      text("iteration", {
        x: String((width + pad.left) / 2),
        y: String(height - 4),
        "text-anchor": "middle",
      }),
      ...series("dual", "dual"),
      ...series("primal", "primal"),
    ],
  );
  const legend = el("p", { class: "legend" }, [
    el("span", { class: "key dual" }, ["— dual (upper bound)"]),
    " ",
    el("span", { class: "key primal" }, ["– – best primal so far"]),
  ]);
  const table = el("details", {}, [
    el("summary", {}, ["The objective as a table"]),
    el("table", { class: "objective" }, [
      el("thead", {}, [
        el("tr", {}, [
          el("th", { scope: "col" }, ["Iteration"]),
          el("th", { scope: "col" }, ["Dual"]),
          el("th", { scope: "col" }, ["Primal"]),
        ]),
      ]),
      el(
        "tbody",
        {},
        points.map((p) =>
          el("tr", {}, [
            el("td", {}, [String(p.iteration)]),
            el("td", {}, [format(p.dual)]),
            el("td", {}, [format(p.primal)]),
          ]),
        ),
      ),
    ]),
  ]);
  const caption = el("figcaption", { id: "chart-summary" }, [summary]);
  return [chart as unknown as HTMLElement, caption, legend, table];
}

/** From white (p = 0) to dark blue (p = 1). */
const HEAT = [0, 60, 150] as const;

/**
 * A cell's shade and the text colour, black or white, that contrasts more with it: the worse of
 * the two best cases is 4.58:1, so every cell's number meets WCAG AA.
 */
function heatColour(p: number): { background: string; text: string } {
  const channels = HEAT.map((c) => Math.round(255 + (c - 255) * p));
  const linear = channels.map((c) => {
    const x = c / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * linear[0]! + 0.7152 * linear[1]! + 0.0722 * linear[2]!;
  const onWhite = 1.05 / (luminance + 0.05);
  const onBlack = (luminance + 0.05) / 0.05;
  return { background: `rgb(${channels.join(",")})`, text: onWhite > onBlack ? "#fff" : "#000" };
}

/** Token marginals: a table of tokens (columns) × labels (rows), each cell shaded by p. */
export function renderHeatmap(result: CitationInspection, allLabels: boolean): HTMLElement {
  const { tokens, labelNames, marginals } = result;
  const rows = labelNames
    .map((name, l) => ({ name, l, max: Math.max(...marginals.map((row) => row[l]!)) }))
    .filter((r) => allLabels || r.max >= 0.001);
  const head = el("tr", {}, [
    el("th", { scope: "col" }, ["label \\ token"]),
    ...tokens.map((t) => el("th", { scope: "col", class: "tok" }, [t])),
  ]);
  const body = rows.map(({ name, l }) =>
    el("tr", {}, [
      el("th", { scope: "row" }, [name]),
      ...tokens.map((token, i) => {
        const p = marginals[i]![l]!;
        const percent = Math.round(100 * p);
        const shade = heatColour(p);
        return el(
          "td",
          {
            class: "cell",
            style: `background:${shade.background};color:${shade.text}`,
            title: `p(${name} | ${token}) = ${p.toFixed(3)}`,
          },
          [percent >= 1 ? String(percent) : ""],
        );
      }),
    ]),
  );
  return el("table", { class: "heatmap", "data-rows": String(rows.length) }, [
    el("caption", {}, [
      `Marginal probability (%) of each label at each token: ${rows.length} of ${labelNames.length} labels × ${tokens.length} tokens.`,
    ]),
    el("thead", {}, [head]),
    el("tbody", {}, body),
  ]);
}
