/**
 * The check every declared input of a command gets before the command starts (the program's
 * `preAction` hook): what kind of file it is and how large, by `stat`, without opening it (a FIFO
 * is not consumed). The readers check the same again as they read (core's `readInput` and
 * `openInput` with the kind: a pipe stops at the cap); this check makes every declared flag
 * refuse a device, a folder and an oversized file at once, naming the flag, whichever reader (a
 * library's, an import) gets the file later.
 */
import { closeSync, constants, openSync, type Stats, statSync } from "node:fs";
import { LagrangeError } from "@lagrange/core";
import {
  INPUT_CAPS_VARIABLE,
  InputTooLargeError,
  inputSizeCap,
  isRefusedDevice,
  parseInputCaps,
} from "@lagrange/core/node";
import type { CommandFiles, InputFileKind } from "./files-declared.js";

/** Kinds a stream cannot be: a plug-in is imported (a thread would block on a FIFO), a password is a file. */
const REGULAR_ONLY: ReadonlySet<InputFileKind> = new Set(["plugin", "password"]);

/**
 * Refuses, naming the flag: a device other than a terminal (`--lexicon /dev/zero: a device;
 * expected a regular file or a pipe`), a folder where a file is expected and anything but a folder
 * where one is, a pipe where only a regular file will do, and a regular file over its kind's cap
 * (exit 3). A path that does not exist is left to the command (a registry name, or its own
 * "no such file"). A malformed {@link INPUT_CAPS_VARIABLE} is a usage error on every command.
 */
export function checkCommandInputs(files: CommandFiles): void {
  const given = process.env[INPUT_CAPS_VARIABLE];
  if (given !== undefined) parseInputCaps(given);
  for (const { flag, kind, path } of files.inputs) {
    const stats = statOf(path);
    if (stats === undefined) continue;
    const refused = refusal(kind, path, stats);
    if (refused !== undefined) {
      throw new LagrangeError("usage", `${flag} ${path}: ${refused}`);
    }
    if (kind === "folder" || !stats.isFile()) continue;
    const cap = inputSizeCap(kind);
    if (stats.size > cap) {
      const error = new InputTooLargeError(path, stats.size, cap, kind);
      throw new LagrangeError("bad-input", `${flag} ${error.message}`, { cause: error });
    }
  }
}

/**
 * What `path` is, or undefined where it cannot be told: missing (a registry name, or the command's
 * own "no such file"), or in a folder this user cannot search (the command's reader says
 * "cannot be read (permission denied)" naming the option, as for every unreadable file).
 */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function refusal(kind: InputFileKind, path: string, stats: Stats): string | undefined {
  if (kind === "folder") {
    return stats.isDirectory() ? undefined : `${whatItIs(path, stats)}; expected a folder`;
  }
  // The words core's opener uses for a folder (InputFileError), whichever check meets it first.
  if (stats.isDirectory()) return "is a directory; expected a file";
  if (isDevice(path, stats)) return "a device; expected a regular file or a pipe";
  if (REGULAR_ONLY.has(kind) && !stats.isFile()) {
    return `${whatItIs(path, stats)}; expected a regular file`;
  }
  return undefined;
}

/** A device no input may be (core's `isRefusedDevice`): it is opened, not read, to tell. */
function isDevice(path: string, stats: Stats): boolean {
  if (!stats.isBlockDevice() && !stats.isCharacterDevice()) return false;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return true;
  }
  try {
    return isRefusedDevice(stats, fd);
  } finally {
    closeSync(fd);
  }
}

function whatItIs(path: string, stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a pipe";
  if (stats.isSocket()) return "a socket";
  if (isDevice(path, stats)) return "a device";
  return stats.isFile() ? "a file" : "not a regular file";
}
