// protocol_version as a file writes it: the one reading validate, status, doctor, migrate and
// every write share. The protocol writes it as a string; a number (a hand, or a YAML-minded tool,
// dropped the quotes) is read by the text the file writes it with, as that text in quotes would
// be: 1.0 and 1.1 are those versions without their quotes (a slip any write stamps anew), while
// 1.10 is version 1.10, newer than 1.1, though JSON parses both to the same double.
import { WIRE_VERSIONS, type WireVersion } from './shapes.generated.js';
import { CURRENT_WIRE_VERSION } from './types.js';

/** The version protocol_version `value` names: a string as it is, a number by its text in the file (`text`), else undefined. */
export function versionText(value: unknown, text: (v: number) => string): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? text(value) : undefined;
}

/**
 * The wire version a protocol_version written as `text` reads as (a string's own text, a number's
 * as the file writes it): "1.0" and "1.1" as they are, and "1", version 1 with no minor, as "1.0",
 * its first (hand-written files say `"protocol_version": 1`). Else undefined: 1.10, 2, "2".
 */
export function unquotedWireVersion(text: string): WireVersion | undefined {
  if (text === '1') return '1.0' as WireVersion;
  return (WIRE_VERSIONS as readonly string[]).includes(text) ? (text as WireVersion) : undefined;
}

/**
 * For a number written `text` whose double is a wire version its text is not (1.10 is 1.1 as a
 * double, 1.00 is 1.0): that the text counts, said; else null.
 */
export function notTheVersion(text: string, value: number): string | null {
  if (unquotedWireVersion(text) !== undefined) return null;
  const same = WIRE_VERSIONS.find((w) => Number(w) === value && w !== text);
  return same === undefined ? null : `the number ${text} is not ${same}: a version is read as written`;
}

/**
 * What validate says of a protocol_version that is a slip of a version it reads (1, 1.0, 1.1 as
 * numbers, "1" as a string), or null: it is not as the protocol writes it (a string, "1.0" or
 * "1.1"). Read as that version; a write by checkpoint stamps it anew, read-only commands and
 * merges keep the text as it is. `text`: a number's text in the file.
 */
export function versionSlip(value: unknown, text?: (v: number, path: string[]) => string): string | null {
  if ((WIRE_VERSIONS as readonly unknown[]).includes(value)) return null;
  const written = typeof value === 'number' ? (text?.(value, ['protocol_version']) ?? String(value)) : typeof value === 'string' ? value : undefined;
  const version = written === undefined ? undefined : unquotedWireVersion(written);
  if (version === undefined) return null;
  const as = typeof value === 'number' ? `the number ${written}` : `"${written}"`;
  return `protocol_version is ${as}, read as "${version}"; the protocol writes it as the string "${version}" (any checkpoint update stamps "${CURRENT_WIRE_VERSION}")`;
}
