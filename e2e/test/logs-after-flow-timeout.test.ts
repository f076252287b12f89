// A flow timeout ends the execution TIMED_OUT first and stops its running
// task after: the task may still print as it stops (a TERM trap here). A live
// log stream must not end with the execution but with the last running task,
// so those last lines reach it, before `end`. The same holds for the
// execution event stream: the stopped task's end state reaches it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SseClient } from '../../apps/api-gateway/test/sse-client.js';
import { flow, sh } from './engine-support.js';
import { startStack, type Stack } from './stack.js';

let s: Stack;

before(async () => {
  s = await startStack();
  const script = `trap 'echo "stopping after the flow timeout"; exit 1' TERM; echo started; while true; do sleep 0.1; done`;
  await s.saveFlow('late', { 'stops.flow.yaml': flow({ id: 'stops', timeout: '1s', tasks: [{ id: 'loop', type: 'command', command: sh(script) }] }) });
});
after(() => s?.stop());

test('the lines a task prints while a flow timeout stops it reach the live stream before its end', async () => {
  const ex = await s.trigger('late', 'stops');
  const stream = await SseClient.open(`${s.url}/api/v1/executions/${ex.id}/logs/stream`, { authorization: `Bearer ${s.token}` });
  const events = await SseClient.open(`${s.url}/api/v1/executions/${ex.id}/events`, { authorization: `Bearer ${s.token}` });
  assert.equal(stream.status, 200);
  await Promise.all([stream.done, events.done]);
  const texts = stream.lines.map((e) => JSON.parse(e.data).text);
  assert.equal(texts[0], 'started');
  assert.ok(texts.includes('stopping after the flow timeout'), `the stream ended before the task's last line: ${JSON.stringify(texts)}`);
  assert.deepEqual(stream.events.at(-1), { event: 'end', data: '{}' });
  const done = (await s.api('GET', `/api/v1/executions/${ex.id}`)).body;
  assert.equal(done.state, 'TIMED_OUT');
  assert.notEqual(done.task_runs[0].state, 'RUNNING');
  const details = events.events.filter((e) => e.event === 'execution').map((e) => JSON.parse(e.data));
  assert.deepEqual(events.events.at(-1), { event: 'end', data: '{}' });
  assert.equal(details.at(-1).state, 'TIMED_OUT');
  assert.equal(details.at(-1).task_runs[0].state, done.task_runs[0].state, "the stopped task run's end state was streamed before the end");
});
