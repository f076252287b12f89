// output_files (docs/using/files.md): an extension of script and command
// tasks, listed by flowExtensions; patterns must be relative paths without
// `..`; other task types do not take it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateFlow } from './validate.js';

const flow = (task: string) => `id: f\ntasks:\n  - ${task}\n`;

describe('output_files', () => {
  it('is valid on command and script tasks, and listed as an extension with its line', () => {
    const { errors, extensions } = validateFlow(flow('{id: w, type: command, command: [echo], output_files: ["out/*.csv", "report.json"]}'));
    assert.deepEqual(errors, []);
    assert.deepEqual(
      extensions?.map((e) => [e.field, e.what, e.line]),
      [['tasks[0].output_files', 'output_files (files kept after the task)', 3]],
    );
    assert.deepEqual(validateFlow(flow('{id: w, type: script, file: a.sh, output_files: ["**/*.parquet"]}')).errors, []);
  });

  it('refuses a pattern leaving the working directory, an absolute one, an empty list and another task type, on the field', () => {
    for (const [task, field] of [
      ['{id: w, type: command, command: [echo], output_files: ["../x"]}', 'tasks[0].output_files[0]'],
      ['{id: w, type: command, command: [echo], output_files: ["a", "/etc/passwd"]}', 'tasks[0].output_files[1]'],
      ['{id: w, type: command, command: [echo], output_files: []}', 'tasks[0].output_files'],
      ['{id: w, type: http, url: "https://example.com", output_files: ["a"]}', 'tasks[0].output_files'],
    ] as const) {
      const { errors } = validateFlow(flow(task));
      assert.ok(errors.length > 0, task);
      assert.equal(errors[0]!.field, field, `${task}: ${JSON.stringify(errors)}`);
    }
  });
});
