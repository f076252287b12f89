// withLogFields: every line written for a piece of work (a task run in a
// dispatcher) carries its ids, whoever writes it and however late: after an
// await, in a timer, in a promise chain started inside. Lines outside carry
// none, a line's own field wins, and nested calls add to the outer fields.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestLogger, withLogFields } from '../src/index.js';

const tick = () => new Promise<void>((r) => setTimeout(r, 5));

it('lines written inside carry the fields, across awaits, timers and promise chains; lines outside do not', async () => {
  const { logger, lines } = createTestLogger();
  logger.info('before');
  const work = withLogFields({ execution_id: 'ex-1', task_run_id: 'tr-1', unset: undefined }, async () => {
    await tick();
    logger.warn('after an await');
    await new Promise<void>((r) =>
      setTimeout(() => {
        logger.info('in a timer');
        r();
      }, 1),
    );
    return Promise.reject(new Error('boom')).catch(() => logger.error('in a catch'));
  });
  logger.info('beside, outside');
  await work;
  logger.info('after');
  const by = Object.fromEntries(lines().map((l) => [l.message, l]));
  for (const m of ['after an await', 'in a timer', 'in a catch']) {
    assert.equal(by[m]?.execution_id, 'ex-1', m);
    assert.equal(by[m]?.task_run_id, 'tr-1', m);
    assert.ok(!('unset' in by[m]!), 'an undefined field is left out');
  }
  for (const m of ['before', 'beside, outside', 'after']) assert.equal(by[m]?.execution_id, undefined, m);
});

it("a line's own field wins (and one naming other work gets none), nested calls add to the outer fields, and two runs at once keep their own", async () => {
  const { logger, lines } = createTestLogger();
  await withLogFields({ execution_id: 'ex-1' }, async () => {
    logger.info('own wins', { execution_id: 'ex-other' });
    await withLogFields({ task_run_id: 'tr-1' }, async () => {
      // Written inside run tr-1's work about another run (code shared between runs): none of tr-1's fields.
      logger.warn('about another run', { task_run_id: 'tr-2' });
    });
    await withLogFields({ task_run_id: 'tr-9' }, async () => {
      await tick();
      logger.info('nested');
    });
  });
  await Promise.all(
    ['a', 'b'].map((x) =>
      withLogFields({ task_run_id: `tr-${x}` }, async () => {
        await tick();
        logger.info(`run ${x}`);
      }),
    ),
  );
  const by = Object.fromEntries(lines().map((l) => [l.message, l]));
  assert.equal(by['own wins']?.execution_id, 'ex-other');
  assert.deepEqual([by['about another run']?.task_run_id, by['about another run']?.execution_id], ['tr-2', undefined]);
  assert.deepEqual([by.nested?.execution_id, by.nested?.task_run_id], ['ex-1', 'tr-9']);
  assert.equal(by['run a']?.task_run_id, 'tr-a');
  assert.equal(by['run b']?.task_run_id, 'tr-b');
});
