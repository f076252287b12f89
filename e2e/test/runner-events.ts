// A runner event posted as a task's runner posts it (runnerPostEvents, with a
// run token signed by the stack's key): for tests that need a task run's
// progress without a task that reports one.
import type { components } from '@svc/api-spec';
import { loadRunTokenKey, signRunToken } from '@svc/engine/internal';
import type { Stack } from './stack.ts';

export async function postRunnerEvent(s: Stack, taskRunId: string, event: components['schemas']['RunnerEventsRequest']): Promise<number> {
  const token = signRunToken(await loadRunTokenKey(s.db), taskRunId, new Date(Date.now() + 3600_000));
  const r = await fetch(`${s.url}/api/runner/v1/task-runs/${encodeURIComponent(taskRunId)}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  return r.status;
}
