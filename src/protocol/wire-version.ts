// protocol_version as a file writes it: the one reading validate, status, doctor, migrate and
// every write share. The protocol writes it as a string; a number (a hand, or a YAML-minded tool,
// dropped the quotes) is read by the text the file writes it with, as that text in quotes would
// be: 1.0 and 1.1 are those versions without their quotes (a slip any write stamps anew), while
// 1.10 is version 1.10, newer than 1.1, though JSON parses both to the same double.
import { WIRE_VERSIONS, type WireVersion } from './shapes.generated.js';

/** The version protocol_version `value` names: a string as it is, a number by its text in the file (`text`), else undefined. */
export function versionText(value: unknown, text: (v: number) => string): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? text(value) : undefined;
}

/** The wire version a number written as `text` is (exactly "1.0" or "1.1"), else undefined. */
export function unquotedWireVersion(text: string): WireVersion | undefined {
  return (WIRE_VERSIONS as readonly string[]).includes(text) ? (text as WireVersion) : undefined;
}

/**
 * For a number written `text` whose double is a wire version its text is not (1.10 is 1.1 as a
 * double, 1.00 is 1.0): that the text counts, said; else null.
 */
export function notTheVersion(text: string, value: number): string | null {
  const same = WIRE_VERSIONS.find((w) => Number(w) === value && w !== text);
  return same === undefined ? null : `the number ${text} is not ${same}: a version is read as written`;
}
