// The task graph of an execution: tasks placed in layers by their longest
// dependency path (a Sugiyama-style layering, enough for flows of up to 200
// tasks without a layout library), edges drawn as curves, each node coloured by
// the state of the task's latest attempt. Nodes are buttons: Enter or a click
// selects the task (the log view then shows only it).
import { useMemo } from 'react';
import type { FlowTask, TaskRun } from '../types';

const W = 170;
const H = 44;
const GX = 60;
const GY = 18;

interface Placed {
  id: string;
  x: number;
  y: number;
  run?: TaskRun;
  attempts: number;
}

/** Layers of a DAG by longest path from a root; tasks in a cycle or with unknown deps fall back to layer 0. */
export function layers(tasks: FlowTask[]): Map<string, number> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((d) => byId.has(d));
    const d = deps.length ? Math.max(...deps.map(depth)) + 1 : 0;
    visiting.delete(id);
    layer.set(id, d);
    return d;
  };
  for (const t of tasks) depth(t.id);
  return layer;
}

/** The latest attempt of each task key. */
export function latestRuns(runs: TaskRun[]): Map<string, TaskRun> {
  const out = new Map<string, TaskRun>();
  for (const r of runs) {
    const cur = out.get(r.task_key);
    if (!cur || r.attempt >= cur.attempt) out.set(r.task_key, r);
  }
  return out;
}

export function Dag({ tasks, runs, selected, onSelect }: { tasks: FlowTask[]; runs: TaskRun[]; selected?: string; onSelect: (task: string | undefined) => void }) {
  const { nodes, edges, width, height } = useMemo(() => {
    // Task runs of tasks the definition does not know (file runs) still get a node.
    const all = [...tasks];
    for (const r of runs) if (!all.some((t) => t.id === r.task_key)) all.push({ id: r.task_key, type: r.task_type });
    const lay = layers(all);
    const latest = latestRuns(runs);
    const perLayer = new Map<number, number>();
    const nodes: Placed[] = all.map((t) => {
      const l = lay.get(t.id) ?? 0;
      const i = perLayer.get(l) ?? 0;
      perLayer.set(l, i + 1);
      return { id: t.id, x: l * (W + GX) + 8, y: i * (H + GY) + 8, run: latest.get(t.id), attempts: runs.filter((r) => r.task_key === t.id).length };
    });
    const pos = new Map(nodes.map((n) => [n.id, n]));
    const edges = all.flatMap((t) =>
      (t.depends_on ?? []).flatMap((d) => {
        const a = pos.get(d);
        const b = pos.get(t.id);
        return a && b ? [{ key: `${d}->${t.id}`, a, b }] : [];
      }),
    );
    const width = Math.max(...nodes.map((n) => n.x + W), 200) + 8;
    const height = Math.max(...nodes.map((n) => n.y + H), 60) + 8;
    return { nodes, edges, width, height };
  }, [tasks, runs]);

  return (
    <div className="dag" role="group" aria-label="Task graph">
      <svg width={width} height={height} aria-hidden="true" className="dag-edges">
        {edges.map(({ key, a, b }) => {
          const x1 = a.x + W;
          const y1 = a.y + H / 2;
          const x2 = b.x;
          const y2 = b.y + H / 2;
          const mx = (x1 + x2) / 2;
          return <path key={key} d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`} />;
        })}
      </svg>
      {nodes.map((n) => {
        const state = n.run?.state ?? 'PENDING';
        return (
          <button
            type="button"
            key={n.id}
            className={`dag-node state-${state.toLowerCase()}${selected === n.id ? ' selected' : ''}`}
            style={{ left: n.x, top: n.y, width: W, height: H }}
            aria-pressed={selected === n.id}
            aria-label={`Task ${n.id}: ${state}${n.run?.reused_from_id ? ', reused' : ''}`}
            onClick={() => onSelect(selected === n.id ? undefined : n.id)}
          >
            <span className="dag-title">{n.id}</span>
            <span className="dag-sub">
              {state}
              {n.run?.reused_from_id ? ' · reused' : ''}
              {n.attempts > 1 ? ` · ${n.attempts} attempts` : ''}
              {n.run?.progress?.percent !== undefined && state === 'RUNNING' ? ` · ${Math.round(n.run.progress.percent)}%` : ''}
            </span>
          </button>
        );
      })}
    </div>
  );
}
