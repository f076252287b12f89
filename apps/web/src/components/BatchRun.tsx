// The batch mode of a flow's run section: a pasted list of input sets (a
// JSON array, or NDJSON: one {inputs, labels} object per line) starts one
// execution each in one request (triggerFlowBatch), all or none; the
// created executions are listed with their states.
import { useState } from 'react';
import { client } from '../api';
import { Link } from '../router';
import type { Answer, RequestBody } from '../types';
import { Button, ErrorBox, useAction } from '../ui';

type Items = RequestBody<'triggerFlowBatch'>['items'];

/** The items of a pasted batch, or why it cannot be read. */
export function parseBatchText(text: string): { items: Items } | { error: string } {
  const t = text.trim();
  if (!t) return { error: 'Paste at least one item' };
  let list: unknown[];
  if (t.startsWith('[')) {
    try {
      list = JSON.parse(t) as unknown[];
    } catch (e) {
      return { error: `Not a JSON array: ${(e as Error).message}` };
    }
  } else {
    list = [];
    for (const [i, line] of text.split('\n').entries()) {
      if (!line.trim()) continue;
      try {
        list.push(JSON.parse(line));
      } catch (e) {
        return { error: `Line ${i + 1} is not JSON: ${(e as Error).message}` };
      }
    }
  }
  for (const [i, it] of list.entries()) {
    if (!it || typeof it !== 'object' || Array.isArray(it)) return { error: `Item ${i} must be an object with inputs and labels` };
  }
  return { items: list as Items };
}

export function BatchRun({ ns, flowId, disabledReason }: { ns: string; flowId: string; disabledReason: string | null }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [created, setCreated] = useState<Answer<'triggerFlowBatch'>['executions'] | null>(null);
  const run = useAction(async (items: Items) => {
    const r = await client.post('/api/v1/flows/{namespace}/{flowId}/executions/batch', { params: { path: { namespace: ns, flowId } }, body: { items } });
    setCreated(r.executions);
  });
  return (
    <form
      className="stack batch-run"
      aria-label="Run a batch"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const p = parseBatchText(text);
        setCreated(null);
        if ('error' in p) return setProblem(p.error);
        setProblem(null);
        void run.run(p.items);
      }}
    >
      <div className="field">
        <label htmlFor="batch-items">Items</label>
        <textarea
          id="batch-items"
          rows={8}
          value={text}
          aria-invalid={!!problem}
          aria-describedby={problem ? 'batch-items-help batch-items-err' : 'batch-items-help'}
          onChange={(e) => setText(e.target.value)}
          placeholder={'[{"inputs": {"date": "2026-01-01"}, "labels": {"batch": "jan"}}]'}
        />
        <span id="batch-items-help" className="muted small">
          A JSON array or one JSON object per line, each with optional <code>inputs</code> and <code>labels</code>; up to 1,000 items, created together or not at all.
        </span>
        {problem && (
          <span id="batch-items-err" className="field-error" role="alert">
            {problem}
          </span>
        )}
      </div>
      <Button type="submit" className="primary" disabledReason={disabledReason} disabled={run.busy}>
        Run batch
      </Button>
      <ErrorBox error={run.error} />
      {created && (
        <div className="stack" aria-label="Created executions">
          <p role="status">
            Created {created.length} execution{created.length === 1 ? '' : 's'}
          </p>
          <ol className="batch-created">
            {created.map((x) => (
              <li key={x.id}>
                <Link to={`/executions/${x.id}`}>{x.id}</Link> <span className="muted small">{x.state}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </form>
  );
}
