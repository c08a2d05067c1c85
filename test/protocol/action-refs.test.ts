import { describe, expect, it } from 'vitest';
import { withActionRefs, workTexts } from '../../src/protocol/action-refs.js';
import { actionText } from '../../src/protocol/types.js';
import { workRefs } from '../../src/doctor/landed.js';

describe('an action object\'s own reference keys', () => {
  it('add the PR, merge request, ticket and URL they name to the words the work is read from', () => {
    const a = { text: 'Get the limiter merged', pr: '#14', ticket: 'PLAT-123', url: 'https://github.com/acme/api/pull/14', done_when: 'npm test' };
    expect(withActionRefs(a.text, a)).toBe('Get the limiter merged (#14, PLAT-123, https://github.com/acme/api/pull/14)');
    expect(workRefs(withActionRefs(a.text, a)).map((r) => r.token)).toEqual(['#14', 'PLAT-123']);
    // A number is the host's request number; lists are read item by item; issues and other keys are not work.
    expect(withActionRefs('x', { PR: 14, merge_request: 7, tickets: ['OPS-1', 'OPS-2'], issue: '#3', owner: 'alice', note: 'after #12 lands' })).toBe('x (PR 14, MR 7, OPS-1, OPS-2)');
    expect(withActionRefs('plain', 'plain')).toBe('plain');
    expect(withActionRefs('x', { text: 'x', pr: '', mr: -1, jira: null })).toBe('x');
    // A request's number written as text, a ticket key in lower case (red team 12-07).
    const loose = withActionRefs('Merge it', { pr: '41', mr: ' 7 ', prs: ['42'], jira: 'plat-123', ticket: 'ops-9' });
    expect(loose).toBe('Merge it (PR 41, MR 7, PR 42, PLAT-123, OPS-9)');
    expect(workRefs(loose).map((r) => r.token).sort()).toEqual(['!7', '#41', '#42', 'OPS-9', 'PLAT-123']);
  });
  it('are found by an action\'s words, as the checks read them', () => {
    const cp = { next_actions: ['Write docs', { text: 'Get the limiter merged', pr: 14 }, { text: 'Get the limiter merged', ticket: 'PLAT-9' }] };
    const work = workTexts(cp as never, actionText);
    expect(work('Get the limiter merged')).toBe('Get the limiter merged (PR 14, PLAT-9)');
    expect(work('Write docs')).toBe('Write docs');
    expect(work('unknown')).toBe('unknown');
  });
});
