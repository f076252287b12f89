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

  describe("tasks.<id>.files['path']", () => {
    const two = (reader: string, writer = '{id: w, type: command, command: [echo], output_files: ["out/*.csv"]}') => `id: f\ntasks:\n  - ${writer}\n  - ${reader}\n`;

    it('is valid in a script or command task downstream of the task, for a path one of its patterns matches', () => {
      for (const reader of [
        `{id: r, type: command, depends_on: [w], command: [cat, "{{ tasks.w.files['out/a.csv'] }}"]}`,
        `{id: r, type: script, file: r.sh, depends_on: [w], args: ["{{ tasks.w.files['out/a.csv'] }}"], env: {F: "{{ tasks.w.files['out/b.csv'] }}"}}`,
      ]) {
        assert.deepEqual(validateFlow(two(reader)).errors, [], reader);
      }
    });

    it('refuses a task that is not upstream, a path no pattern matches, a task without output_files, another task type and a missing path, on the field', () => {
      for (const [src, field, message] of [
        [two(`{id: r, type: command, command: [cat, "{{ tasks.w.files['out/a.csv'] }}"]}`), 'tasks[1].command[1]', /not upstream/],
        [
          two(`{id: r, type: command, depends_on: [w], command: [cat, "{{ tasks.w.files['out/a.txt'] }}"]}`),
          'tasks[1].command[1]',
          /no output_files pattern of task "w" matches "out\/a.txt"/,
        ],
        [
          two(`{id: r, type: command, depends_on: [w], command: [cat, "{{ tasks.w.files['a'] }}"]}`, '{id: w, type: command, command: [echo]}'),
          'tasks[1].command[1]',
          /keeps none/,
        ],
        [two(`{id: r, type: http, depends_on: [w], url: "https://example.com/{{ tasks.w.files['out/a.csv'] }}"}`), 'tasks[1].url', /only a script or command task/],
        [two(`{id: r, type: command, depends_on: [w], command: [cat, "{{ tasks.w.files }}"]}`), 'tasks[1].command[1]', /needs a file path/],
      ] as const) {
        const { errors } = validateFlow(src);
        assert.ok(errors.length > 0, src);
        assert.equal(errors[0]!.field, field, `${src}: ${JSON.stringify(errors)}`);
        assert.match(errors[0]!.message, message, JSON.stringify(errors));
      }
    });
  });
});
