// The UI's pure pieces: run-form checks, the restart plan, the side-by-side
// diff, the graph's layout, the namespace tree and route matching.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkInputs } from './components/RunForm.tsx';
import { restartPlan } from './pages/Execution.tsx';
import { sideBySide } from './components/DiffView.tsx';
import { layoutGraph, NODE_H, NODE_W } from './components/graph-layout.ts';
import { namespaceTree } from './pages/Flows.tsx';
import { match } from './router.tsx';
import type { FlowInput, TaskRun } from './types.ts';

describe('run form checks', () => {
  const inputs: FlowInput[] = [
    { id: 'n', type: 'int', required: true },
    { id: 'x', type: 'number' },
    { id: 'mode', type: 'select', values: ['a', 'b', 3] },
    { id: 'cfg', type: 'json' },
    { id: 'flag', type: 'boolean' },
    { id: 'name', type: 'string', required: true, default: 'anon' },
  ];
  it('types the values and leaves empty optional ones out', () => {
    const r = checkInputs(inputs, { n: '4', x: '2.5', mode: '3', cfg: '{"a":1}', flag: true, name: '' });
    assert.deepEqual(r.errors, {});
    assert.deepEqual(r.ok, { n: 4, x: 2.5, mode: 3, cfg: { a: 1 }, flag: true });
  });
  it('names each problem: required, whole number, number, select value, JSON', () => {
    const r = checkInputs(inputs, { n: '', x: 'abc', mode: 'z', cfg: '{', flag: false, name: '' });
    assert.equal(r.errors.n, 'Required');
    assert.equal(r.errors.x, 'Must be a number');
    assert.match(r.errors.mode!, /one of a, b, 3/);
    assert.match(r.errors.cfg!, /Not valid JSON/);
    assert.equal(r.errors.name, undefined, 'a required input with a default may stay empty');
    assert.equal(checkInputs(inputs, { n: '2.5' }).errors.n, 'Must be a whole number');
  });
});

describe('restart plan', () => {
  const run = (task_key: string, attempt: number, state: TaskRun['state']) => ({ id: `${task_key}${attempt}`, task_key, attempt, state }) as TaskRun;
  it('reuses tasks whose latest attempt succeeded and runs the others again', () => {
    const plan = restartPlan([run('a', 1, 'SUCCESS'), run('b', 1, 'FAILED'), run('b', 2, 'SUCCESS'), run('c', 1, 'SUCCESS'), run('c', 2, 'FAILED'), run('d', 1, 'SKIPPED')]);
    assert.deepEqual(plan, { reused: ['a', 'b'], again: ['c', 'd'] });
  });
});

describe('side-by-side diff', () => {
  it('pairs removals with additions and keeps context on both sides', () => {
    const rows = sideBySide(['--- a/f', '+++ b/f', '@@ -1,3 +1,3 @@', ' id: x', '-a: 1', '+a: 2', ' b: 3'].join('\n'));
    assert.deepEqual(rows.slice(1), [
      { left: { n: 1, text: 'id: x', kind: 'ctx' }, right: { n: 1, text: 'id: x', kind: 'ctx' } },
      { left: { n: 2, text: 'a: 1', kind: 'del' }, right: { n: 2, text: 'a: 2', kind: 'add' } },
      { left: { n: 3, text: 'b: 3', kind: 'ctx' }, right: { n: 3, text: 'b: 3', kind: 'ctx' } },
    ]);
  });
});

describe('task graph layout', () => {
  it('places each task right of its dependencies, adds tasks only the runs know, and survives a cycle', () => {
    const g = layoutGraph(
      [
        { id: 'a', type: 'command' },
        { id: 'b', type: 'command', depends_on: ['a'] },
        { id: 'c', type: 'command', depends_on: ['a', 'b', 'unknown'] },
        { id: 'x', type: 'command', depends_on: ['y'] },
        { id: 'y', type: 'command', depends_on: ['x'] },
      ],
      [{ task_key: 'file-task', task_type: 'command' } as TaskRun],
    );
    const at = new Map(g.nodes.map((n) => [n.id, n]));
    assert.ok(at.get('a')!.x < at.get('b')!.x && at.get('b')!.x < at.get('c')!.x);
    assert.ok(at.has('x') && at.has('y') && at.has('file-task'));
    assert.deepEqual(g.edges.filter((e) => e.to === 'c').map((e) => e.from).sort(), ['a', 'b']);
    for (const n of g.nodes) assert.ok(n.x + NODE_W <= g.width && n.y + NODE_H <= g.height);
  });
});

describe('namespace tree and routes', () => {
  it('nests dot-separated namespaces, adding missing parents', () => {
    const t = namespaceTree(['team.etl', 'team', 'other.a.b']);
    assert.deepEqual(t.map((n) => n.full), ['other', 'team']);
    assert.equal(t[0]!.children[0]!.children[0]!.full, 'other.a.b');
    assert.equal(t[1]!.children[0]!.full, 'team.etl');
  });
  it('matches routes with params, dots and encoded parts', () => {
    assert.deepEqual(match('/flows/:ns/:flow', '/flows/team.etl/daily'), { ns: 'team.etl', flow: 'daily' });
    assert.deepEqual(match('/executions/:id', '/executions/a%2Fb'), { id: 'a/b' });
    assert.equal(match('/executions/:id', '/executions'), null);
    assert.equal(match('/', '/x'), null);
  });
});
