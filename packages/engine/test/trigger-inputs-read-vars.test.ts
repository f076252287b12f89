// A trigger's input templates (webhooks, schedules, flow triggers) read
// `vars` as tasks do: the flow's variables over the namespace's (and its
// parents' and global ones), over the `namespace.yaml` variables of the
// namespace's head; a name no scope has is a template_error.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { TemplateError } from '@svc/flow-schema';
import { VariableStore } from '@svc/secrets';
import { FlowCache, triggerFlow, type StartDeps } from '../src/internal.js';
import { engineFixture, type EngineFixture } from './support/fixture.js';

let fx: EngineFixture;
let pool: pg.Pool;
let deps: StartDeps;

before(async () => {
  fx = await engineFixture('tvars', {
    'namespace.yaml': { variables: { region: 'from-namespace-file', tier: 'gold' } },
    'load.flow.yaml': {
      id: 'load',
      variables: { table: 'orders' },
      inputs: [
        { id: 'where', type: 'string' },
        { id: 'tier', type: 'string' },
        { id: 'table', type: 'string' },
      ],
      tasks: [{ id: 't', type: 'command', command: ['true'] }],
    },
  });
  ({ pool, deps } = fx);
  deps = { ...deps, flows: new FlowCache() };
  await new VariableStore(pool).put('tvars', 'region', 'eu-west');
});
after(() => fx.close());

const fire = (templates: Record<string, string>, trigger?: Record<string, unknown>) =>
  triggerFlow(pool, deps, { namespace: 'tvars', flowId: 'load', inputTemplates: { templates, trigger }, triggerType: 'webhook', createdBy: 'test' });
const inputsOf = async (id: string) => (await pool.query(`SELECT inputs FROM executions WHERE id = $1`, [id])).rows[0].inputs as Record<string, unknown>;

test('input templates read vars from every scope, with the trigger and the flow', async () => {
  const x = await fire(
    { where: '{{ vars.region }}/{{ trigger.body.day }}/{{ flow.id }}', tier: '{{ vars.tier }}', table: '{{ vars.table }}' },
    { body: { day: 'mon' }, headers: {} },
  );
  assert.deepEqual(await inputsOf(x.id), { where: 'eu-west/mon/load', tier: 'gold', table: 'orders' });
  // Again, from the flow cache: the same scope.
  const y = await fire({ where: '{{ vars.region }}', tier: 't', table: 't' });
  assert.deepEqual(await inputsOf(y.id), { where: 'eu-west', tier: 't', table: 't' });
});

test('a variable no scope has is a template error, and nothing is started', async () => {
  const before = (await pool.query(`SELECT count(*)::int AS n FROM executions`)).rows[0].n;
  await assert.rejects(fire({ where: '{{ vars.nowhere }}', tier: 't', table: 't' }), TemplateError);
  assert.equal((await pool.query(`SELECT count(*)::int AS n FROM executions`)).rows[0].n, before);
});
