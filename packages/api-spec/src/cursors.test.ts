import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from './operations/index.js';
import { OPERATION_CURSORS } from './schemas/cursors.js';

// A handler's `ctx.cursor` is typed by OPERATION_CURSORS[its id]; the validator
// checks the catalog's `request.cursor`. They must be the same schema, or a
// handler would read a cursor of another shape than the one checked.
test("each operation's cursor in the catalog is its own entry of OPERATION_CURSORS, and each entry is an operation's", () => {
  const ids = new Set(operations.map((op) => op.operationId));
  for (const op of operations) {
    const own = (OPERATION_CURSORS as Record<string, unknown>)[op.operationId];
    assert.equal(op.request.cursor, own, `${op.operationId}: request.cursor must be OPERATION_CURSORS.${op.operationId}`);
  }
  for (const id of Object.keys(OPERATION_CURSORS)) assert.ok(ids.has(id), `OPERATION_CURSORS.${id} names no operation of the catalog`);
});
