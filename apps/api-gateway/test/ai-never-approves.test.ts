// An approval is a person's decision: the operations marked `humanOnly`
// (approveTaskRun, rejectTaskRun) are never run by the gateway's in-process
// invoker, through which every assistant tool, every confirmed assistant
// action and every MCP tool runs, whatever the caller's role; and no tool of
// the assistant or of MCP names one. (The e2e test of approval gates also
// asks the MCP server over HTTP.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request } from 'express';
import { operations } from '@svc/api-spec';
import type { HttpLogger } from '@svc/http';
import { createInvoker } from '../src/ai/invoke.js';
import { TOOLS } from '../src/ai/tools.js';
import type { AuthPrincipal } from '../src/identity/principal.js';

const HUMAN_ONLY = operations.filter((o) => o.humanOnly).map((o) => o.operationId);

test('the approval operations are the human-only ones, and no assistant or MCP tool runs one', () => {
  assert.deepEqual(HUMAN_ONLY.sort(), ['approveTaskRun', 'rejectTaskRun']);
  for (const t of TOOLS) assert.ok(!HUMAN_ONLY.includes(t.operationId), `tool ${t.name} runs ${t.operationId}`);
});

test('the invoker refuses a human-only operation for an admin, before its handler runs', async () => {
  const called: string[] = [];
  const handlers = Object.fromEntries(HUMAN_ONLY.map((id) => [id, () => called.push(id)]));
  const { invoke } = createInvoker(operations, () => handlers);
  const admin: AuthPrincipal = { role: 'admin', userRole: 'admin', userId: 'u1', email: 'root@example.com', name: 'Root', authType: 'token', mustChangePassword: false };
  for (const id of HUMAN_ONLY) {
    await assert.rejects(
      invoke(
        id,
        admin,
        { params: { executionId: 'e1', taskKey: 'deploy' }, body: { inputs: { ticket: 'CHG-1' } } },
        { req: {} as Request, requestId: 'r1', log: {} as HttpLogger },
      ),
      (err: { status?: number; code?: string; message?: string }) => err.status === 403 && err.code === 'forbidden' && /person's decision/.test(err.message ?? ''),
    );
  }
  assert.deepEqual(called, []);
});
