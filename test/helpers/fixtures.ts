// A small valid in-progress checkpoint for tests to start from; `over` replaces fields.
import type { JsonObject } from '../../src/protocol/types.js';
import { detectFormat, formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import { applyUpdateOps, parseUpdateFlag } from '../../src/protocol/update-ops.js';

export function checkpointDoc(over: Record<string, unknown> = {}): JsonObject {
  return {
    protocol_version: '1.1',
    skill: 'api',
    project: 'demo',
    project_dir: '/demo',
    created_at: '2026-11-01T00:00:00Z',
    updated_at: '2026-11-02T00:00:00Z',
    phase: 'build',
    step: 's1',
    status: 'in_progress',
    progress_summary: 'Building.',
    progress_table: [{ id: 's1', label: 'S1', status: 'in_progress' }],
    context_primer: { key_decisions: ['a'] },
    next_actions: ['go'],
    ...(over as JsonObject),
  };
}

/** A healthy checkpoint written just now (nothing stale), as an agent session leaves it. */
export function freshCheckpoint(skill: string, over: Record<string, unknown> = {}): JsonObject {
  const now = new Date().toISOString();
  return checkpointDoc({
    skill,
    created_at: now,
    updated_at: now,
    step: 'auth',
    progress_summary: 'Auth middleware half done.',
    progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }],
    context_primer: { key_decisions: ['JWT in cookies'], generated_files: [] },
    next_actions: ['Write the auth middleware tests'],
    ...over,
  });
}

/** `text` after the update `flags`, written back the way `update` writes it (keeping its literal texts). */
export function updatedText(text: string, ...flags: string[]): string {
  const parsed = parseJson(text);
  const texts = parsed.texts ?? new Map();
  const doc = applyUpdateOps(parsed.value as JsonObject, flags.map((f) => parseUpdateFlag(f)), texts);
  return formatJson(doc, { ...detectFormat(text), texts });
}

/**
 * The first lines of a checkpoint text written by hand (as the property tests build them, one
 * member a line, two-space indent): skill api of project shop, saved in early November.
 */
export const HAND_WRITTEN_HEAD = `  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/home/dev/shop",
  "created_at": "2026-10-01T09:00:00Z",
  "updated_at": "2026-11-02T17:45:00Z",
`;

/**
 * A checkpoint with a hand-kept run log in skill_state.run_history (4-space indent, one record a
 * line, as written by hand): `runs` are the records' texts, kept exactly.
 */
export function handKeptRunLog(runs: string[], updatedAt: string, summary: string): string {
  return `{
    "protocol_version": "1.1", "skill": "api", "project": "demo", "project_dir": "/demo",
    "created_at": "2026-03-01T10:00:00Z", "updated_at": "${updatedAt}",
    "phase": "build", "step": "s1", "status": "in_progress", "progress_summary": "${summary}",
    "next_actions": ["Run evals"],
    "skill_state": {
        "run_history": [
            ${runs.join(',\n            ')}
        ]
    }
}
`;
}
