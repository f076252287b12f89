// What the AI browser tests share: a precondition on the stored log lines
// of the execution whose logs the assistant or the triage reads.
import assert from 'node:assert/strict';
import type { Ui } from './browser.ts';

/** Waits until the execution's log lines are stored (they may land a moment after its end): what the test reads. */
export async function linesStored(s: Ui['stack'], executionId: string, count: number): Promise<void> {
  let n = 0;
  for (let i = 0; i < 150 && n < count; i++) {
    n = Number((await s.db.query(`SELECT count(*) AS n FROM log_lines WHERE execution_id = $1`, [executionId])).rows[0].n);
    if (n < count) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(n >= count, `execution ${executionId} has ${n} stored log lines, not ${count}`);
}
