/** A labelled citation as a tree of UMass elements over tokens, and its two flat forms. */

export interface CitationElement {
  readonly tag: string;
  readonly children: CitationNode[];
}
export type CitationNode = CitationElement | string;

/**
 * Splits text the way the UMass files are tokenised: on spaces, with trailing `, ; : .` and
 * quotes split off as their own tokens, except the full stop of a one-letter initial (`J.`).
 * Internal punctuation stays (`Ph.D`, `(1989)`, `61--205`, `arXiv:0911.4797`).
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    let core = word;
    const leading: string[] = [];
    while (core.length > 1 && /^["“‘`]/.test(core)) {
      leading.push(core[0]!);
      core = core.slice(1);
    }
    const trailing: string[] = [];
    while (core.length > 1) {
      const last = core[core.length - 1]!;
      if (/[,;:"”’]/.test(last)) {
        trailing.unshift(last);
        core = core.slice(0, -1);
      } else if (last === "." && !/^[A-Za-z]\.$/.test(core)) {
        trailing.unshift(last);
        core = core.slice(0, -1);
      } else break;
    }
    out.push(...leading, core, ...trailing);
  }
  return out;
}

/** An element holding the given nodes; strings are tokenised. */
export function el(tag: string, ...children: readonly (CitationNode | readonly CitationNode[])[]) {
  const flat: CitationNode[] = [];
  for (const child of children) {
    for (const node of Array.isArray(child) ? child : [child as CitationNode]) {
      if (typeof node === "string") flat.push(...tokenize(node));
      else flat.push(node);
    }
  }
  return { tag, children: flat } satisfies CitationElement;
}

/** Appends punctuation or words inside the deepest last element of `node` (as the UMass files do). */
export function appendInside(node: CitationNode, text: string): CitationNode {
  if (typeof node === "string" || text.trim() === "") return node;
  let target: CitationElement = node;
  for (;;) {
    const last = target.children[target.children.length - 1];
    if (last === undefined || typeof last === "string") break;
    target = last;
  }
  const last = target.children[target.children.length - 1];
  // "A." already ends the sentence: style guides never double the full stop.
  if (text.trim() === "." && typeof last === "string" && last.endsWith(".")) return node;
  target.children.push(...tokenize(text));
  return node;
}

/** The UMass inline form: `<tag> tok … </tag>`, everything separated by single spaces. */
export function toInline(nodes: readonly CitationNode[]): string {
  const parts: string[] = [];
  const walk = (node: CitationNode) => {
    if (typeof node === "string") {
      parts.push(node);
      return;
    }
    parts.push(`<${node.tag}>`);
    for (const child of node.children) walk(child);
    parts.push(`</${node.tag}>`);
  };
  for (const node of nodes) walk(node);
  return parts.join(" ");
}

export interface TokensAndLabels {
  readonly tokens: string[];
  /** Hierarchical BIO, outermost first: `I-authors/B-person/B-person-first`; `O` outside all. */
  readonly labels: string[];
  /** Element path without prefixes: `authors/person/person-first`; `O` outside all. */
  readonly paths: string[];
}

/** Tokens with their hierarchical BIO labels: B at a level for the first token of that element. */
export function toTokensAndLabels(nodes: readonly CitationNode[]): TokensAndLabels {
  const tokens: string[] = [];
  const labels: string[] = [];
  const paths: string[] = [];
  const stack: { tag: string; fresh: boolean }[] = [];
  const walk = (node: CitationNode) => {
    if (typeof node === "string") {
      tokens.push(node);
      labels.push(
        stack.length === 0 ? "O" : stack.map((s) => `${s.fresh ? "B" : "I"}-${s.tag}`).join("/"),
      );
      paths.push(stack.length === 0 ? "O" : stack.map((s) => s.tag).join("/"));
      for (const s of stack) s.fresh = false;
      return;
    }
    stack.push({ tag: node.tag, fresh: true });
    for (const child of node.children) walk(child);
    stack.pop();
  };
  for (const node of nodes) walk(node);
  return { tokens, labels, paths };
}

/**
 * Parses one UMass inline line strictly (well-formed nesting, no empty elements) into tokens and
 * labels. Used to check the generator's inline form and to read label inventories; the full
 * reader with lenient repair lives in the formats module.
 */
export function parseInline(line: string, where = "inline citation"): TokensAndLabels {
  const root: CitationElement = { tag: "", children: [] };
  const open: CitationElement[] = [root];
  for (const token of line.split(" ").filter((t) => t !== "")) {
    const tag = /^<(\/?)([a-z][a-z_-]*)>$/.exec(token);
    if (tag === null) {
      open[open.length - 1]!.children.push(token);
    } else if (tag[1] === "") {
      const element: CitationElement = { tag: tag[2]!, children: [] };
      open[open.length - 1]!.children.push(element);
      open.push(element);
    } else {
      const top = open[open.length - 1]!;
      if (open.length === 1 || top.tag !== tag[2]) {
        const expected = open.length === 1 ? "no closing tag" : `</${top.tag}>`;
        throw new Error(`${where}: found ${token}, expected ${expected}`);
      }
      if (top.children.length === 0) throw new Error(`${where}: empty element <${top.tag}>`);
      open.pop();
    }
  }
  if (open.length > 1) {
    throw new Error(`${where}: unclosed <${open[open.length - 1]!.tag}> at end of line`);
  }
  return toTokensAndLabels(root.children);
}
