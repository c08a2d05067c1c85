// What `checkpoint init` writes into .checkpoints/ besides the schema.

/** Temp and lock files an interrupted write can leave: never session state, never committed. */
export const CHECKPOINTS_GITIGNORE = `# Left by interrupted writes (temp files, locks); checkpoint never reads them.
.*.tmp
.*.lock
.*.stale
`;

export const CHECKPOINTS_README = `# .checkpoints/

Session state for AI-agent skills, one file per skill: \`<skill>.checkpoint.json\`
(the Checkpoint Protocol, wire version 1.1). Tracked in git on purpose: it is what lets
a new session, another machine or another branch pick the work up where it stopped.
Do not add this folder to .gitignore.

Schema: \`checkpoint.schema.json\` beside this file. Point an editor at it with
\`"$schema": "./checkpoint.schema.json"\` in a checkpoint.

## Commands

From the npm package \`checkpoint-protocol\`, whose command answers to \`checkpoint\` and to
\`checkpoint-protocol\`. In scripts, or where another tool's \`checkpoint\` may come first
on PATH, use \`npx checkpoint-protocol <command>\`.

| command | what it does |
| --- | --- |
| \`checkpoint-protocol status\` | where every skill left off |
| \`checkpoint-protocol next\` | the single most important next action |
| \`checkpoint-protocol resume [skill]\` | the orientation a new session reads first |
| \`checkpoint-protocol update <skill> --phase=build --next_actions+='...'\` | read, merge, stamp, validate, write |
| \`checkpoint-protocol done <skill>\` | move the action \`next\` names into recently_done |
| \`checkpoint-protocol validate [--strict]\` | the schema gate CI runs |
| \`checkpoint-protocol doctor [--fail-on-warnings]\` | drift against git history (pre-push hook) |
| \`checkpoint-protocol reset <skill>\` / \`history\` / \`restore\` | archive into history/, never delete |

## Rules

- Write read -> merge -> write; never clobber another session's state.
- Keep \`progress_summary\` to a few sentences; rotate per-session telemetry into \`history/\`.
- \`history/\` holds archived checkpoints and rotated logs. Nothing in it is deleted.
- \`config.json\` (optional): \`{ "logs": ["skill_state.audits"], "counters": ["skill_state.runs"], "health_url": "...", "auto_rotate": true, "walk_days": 365 }\` (\`counters\`: merged as base + each branch's increase; \`walk_days\`: how far back history is read; 0 for all).
`;
