// The code blocks of a README that are meant to run: every fenced block whose info string starts
// with ts, typescript or js (```ts, ```js, ```typescript, also ```ts title=… and ~~~ fences).
// Blocks in any other language (text, sh, json, none) are documentation, never run.
//
// Plain Node ESM, no dependencies: the workspace test (readme-examples.test.ts) runs these blocks
// against the TypeScript sources, and a release check can run the same blocks against the packed
// tarballs installed into an empty project.

import { readFileSync } from "node:fs";

/**
 * Languages whose blocks are run; the value is the temp file's extension.
 * @type {Readonly<Record<string, "ts" | "mjs">>}
 */
export const RUNNABLE_LANGUAGES = Object.freeze({
  ts: "ts",
  typescript: "ts",
  js: "mjs",
  javascript: "mjs",
  mjs: "mjs",
});

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)(.*)$/;

/**
 * Every fenced code block of a Markdown text, runnable or not.
 * @param {string} text the Markdown
 * @param {string} [file] the name reported in each block's `file`
 * @returns {{ file: string, line: number, lang: string, info: string, code: string }[]}
 *   `line`: 1-based line of the opening fence; `lang`: the info string's first word, lower-cased
 *   ("" when none); `code`: the block's lines, each with a trailing newline.
 */
export function markdownBlocks(text, file = "<markdown>") {
  const lines = text.split(/\r?\n/);
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    if (open === null) continue;
    // Every group of FENCE always takes part in a match; the defaults only satisfy the type.
    const [, indent = "", fence = "", lang = "", rest = ""] = open;
    if (fence[0] === "`" && rest.includes("`")) continue; // inline code, not a fence
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j] ?? "")?.[1];
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) break;
      // Content indented like the fence loses that indentation (CommonMark).
      let line = lines[j] ?? "";
      for (let k = 0; k < indent.length && line.startsWith(" "); k++) line = line.slice(1);
      body.push(line);
    }
    blocks.push({
      file,
      line: i + 1,
      lang: lang.toLowerCase(),
      info: `${lang}${rest}`.trim(),
      code: body.map((l) => `${l}\n`).join(""),
    });
    i = j; // an unclosed fence runs to the end of the document, as in CommonMark
  }
  return blocks;
}

/**
 * The runnable blocks (ts, typescript, js, javascript, mjs) of a README file.
 * @param {string} readmePath path of the Markdown file (as given, it is also the blocks' `file`)
 * @returns {{ file: string, line: number, lang: string, ext: "ts" | "mjs", code: string }[]}
 */
export function readmeBlocks(readmePath) {
  const text = readFileSync(readmePath, "utf8");
  return markdownBlocks(text, readmePath).flatMap(({ file, line, lang, code }) => {
    const ext = Object.hasOwn(RUNNABLE_LANGUAGES, lang) ? RUNNABLE_LANGUAGES[lang] : undefined;
    return ext === undefined ? [] : [{ file, line, lang, ext, code }];
  });
}
