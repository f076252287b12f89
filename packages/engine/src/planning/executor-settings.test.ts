// A task's executor: its type and every other field from the nearest level
// that sets it (task, flow, namespace.yaml, then the instance default for the
// type), field by field; http and subflow always inline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FlowDefinition, FlowTask } from '@svc/flow-schema';
import { mergeExecutorSpec, resolveExecutor } from './executor.js';

const task = (executor?: Record<string, unknown>): FlowTask => ({ id: 't', type: 'command', command: ['true'], ...(executor ? { executor } : {}) }) as FlowTask;
const flow = (executor?: Record<string, unknown>): FlowDefinition => ({ id: 'f', tasks: [], ...(executor ? { executor } : {}) }) as unknown as FlowDefinition;

test('each field comes from the task, else the flow, else namespace.yaml', () => {
  const ns = { executor: { type: 'docker' as const, image: 'ns-image', pull: 'never' as const, network: 'ns-net', pool: 'ns-pool', resources: { limits: { cpu: '1' } } } };
  const def = flow({ image: 'flow-image', resources: { limits: { memory: '1Gi' } } });
  assert.deepEqual(mergeExecutorSpec(task({ pull: 'always' }), def, ns), {
    type: 'docker',
    pool: 'ns-pool',
    image: 'flow-image',
    pull: 'always',
    network: 'ns-net',
    // An object field is taken whole from one level, not merged.
    resources: { limits: { memory: '1Gi' } },
  });
  assert.deepEqual(mergeExecutorSpec(task(), flow(), null), {});
  assert.deepEqual(mergeExecutorSpec(task({ type: 'kubernetes', image: 'a', kubernetes: { service_account: 'sa' } }), def, ns), {
    type: 'kubernetes',
    pool: 'ns-pool',
    image: 'a',
    pull: 'never',
    network: 'ns-net',
    resources: { limits: { memory: '1Gi' } },
    kubernetes: { service_account: 'sa' },
  });
});

test('the type resolves task, flow, namespace.yaml, then the instance default; http and subflow run inline', () => {
  const ns = { executor: { type: 'kubernetes' as const, image: 'x' } };
  assert.deepEqual(resolveExecutor(task({ type: 'docker', image: 'x' }), flow({ type: 'process' }), ns, 'process'), { type: 'docker', pool: 'default' });
  assert.deepEqual(resolveExecutor(task(), flow({ type: 'process', pool: 'p' }), ns, 'docker'), { type: 'process', pool: 'p' });
  assert.deepEqual(resolveExecutor(task(), flow(), ns, 'docker'), { type: 'kubernetes', pool: 'default' });
  assert.deepEqual(resolveExecutor(task(), flow(), null, 'docker'), { type: 'docker', pool: 'default' });
  assert.deepEqual(resolveExecutor({ id: 'h', type: 'http', url: 'http://x' } as FlowTask, flow({ type: 'docker', image: 'x' }), ns, 'docker'), {
    type: 'inline',
    pool: 'default',
  });
});
