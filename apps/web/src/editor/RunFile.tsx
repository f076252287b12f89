// "Run…" in the editor: runs the open namespace file as an execution
// (runFile), with arguments and environment, and lands on its execution page.
// The service runs the file as saved at the namespace's head, through the
// runtime of its extension, or the file itself when it is executable; an
// unsaved edit is not run, and the dialog says so.
import { useEffect, useRef, useState } from 'react';
import { client } from '../api';
import { navigate } from '../router';
import type { FileEntry } from '../types';
import { Button, ErrorBox, useAction } from '../ui';

/** The extensions a script task has a runtime for (engine spec.ts: python, bash, bun, node). */
export const SCRIPT_EXTENSIONS = ['.py', '.sh', '.ts', '.js'];

/** How the service runs `path`: the runtime of its extension, or the file itself (an executable). */
export function runsWith(path: string): string {
  const runtime = { '.py': 'python', '.sh': 'bash', '.ts': 'bun', '.js': 'node' }[SCRIPT_EXTENSIONS.find((x) => path.endsWith(x)) ?? ''];
  return runtime ? `with ${runtime}, from its extension` : 'as a command: the file itself, executable';
}

/** Why `path` cannot be run from the editor, or null when it can. */
export function runRefusal(path: string, entry: FileEntry | undefined): string | null {
  if (!path) return 'Open a file first';
  if (!entry) return 'Save the file first: a run uses the saved version';
  if (SCRIPT_EXTENSIONS.some((x) => path.endsWith(x)) || entry.executable) return null;
  return `Only scripts (${SCRIPT_EXTENSIONS.join(', ')}) and executable files run`;
}

/** The arguments of the form's text: one a line (a final newline adds none). */
export function parseArgs(text: string): string[] {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `NAME=value` lines as an environment; blank lines are skipped, a line without `=` is a problem. */
export function parseEnv(text: string): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const eq = line.indexOf('=');
    if (eq <= 0) problems.push(`Line ${i + 1}: write NAME=value`);
    else env[line.slice(0, eq).trim()] = line.slice(eq + 1);
  });
  return { env, problems };
}

export function RunFileDialog({ ns, path, version, unsaved, onClose }: { ns: string; path: string; version?: number; unsaved: boolean; onClose: () => void }) {
  const [args, setArgs] = useState('');
  const [envText, setEnvText] = useState('');
  const parsed = parseEnv(envText);
  const first = useRef<HTMLTextAreaElement>(null);
  useEffect(() => first.current?.focus(), []);
  const run = useAction(async () => {
    const ex = await client.post('/api/v1/namespaces/{namespace}/run', { params: { path: { namespace: ns } }, body: { path, args: parseArgs(args), env: parsed.env } });
    navigate(`/executions/${ex.id}`);
  });
  return (
    <>
      <div className="dialog-backdrop" onClick={onClose} />
      <form
        className="dialog run-file"
        role="dialog"
        aria-modal="true"
        aria-labelledby="run-file-title"
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
        onSubmit={(e) => {
          e.preventDefault();
          if (!parsed.problems.length) void run.run();
        }}
      >
        <h2 id="run-file-title">
          Run <code>{path}</code>
        </h2>
        <p className="muted small">
          Runs the file as saved{version !== undefined ? ` in version ${version}` : ''} of {ns}, {runsWith(path)}, as an execution of its own. Arguments and values are passed as
          written: they are not templates.
        </p>
        {unsaved && <p className="notice small">The file has unsaved changes: they are not part of the run.</p>}
        <label className="field">
          Arguments, one a line
          <textarea ref={first} rows={3} value={args} onChange={(e) => setArgs(e.target.value)} placeholder={'--rows\n10'} spellCheck={false} />
        </label>
        <label className="field">
          Environment, NAME=value a line
          <textarea
            rows={3}
            value={envText}
            onChange={(e) => setEnvText(e.target.value)}
            placeholder="REPORT_DATE=2026-01-31"
            spellCheck={false}
            aria-invalid={parsed.problems.length ? true : undefined}
          />
        </label>
        {parsed.problems.map((p) => (
          <p key={p} className="field-error">
            {p}
          </p>
        ))}
        <ErrorBox error={run.error} />
        <div className="row">
          <Button type="submit" className="primary" disabled={run.busy} disabledReason={parsed.problems.length ? 'Fix the environment lines first' : null}>
            Run file
          </Button>
          <Button onClick={onClose}>Cancel</Button>
        </div>
      </form>
    </>
  );
}
