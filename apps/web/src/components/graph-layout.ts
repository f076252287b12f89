// Where each task of an execution's graph sits: dagre's layered (Sugiyama)
// layout, left to right, so dependencies read from left to right and edges
// cross as little as dagre can manage. Pure (no DOM), so it is unit-tested.
import { Graph, layout } from '@dagrejs/dagre';
import type { FlowTask, TaskRun } from '../types';

export { latestRuns } from './task-runs';

export const NODE_W = 170;
export const NODE_H = 44;

export interface GraphNode {
  id: string;
  /** Top-left corner. */
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
}

/**
 * The tasks of the definition plus any task key only the runs know (a file
 * run's tasks), laid out; dependencies on unknown tasks are left out.
 */
export function layoutGraph(tasks: FlowTask[], runs: TaskRun[]): { nodes: GraphNode[]; edges: GraphEdge[]; width: number; height: number } {
  const all = [...tasks];
  // A run's task type is one of the flow file's task types.
  for (const r of runs) if (!all.some((t) => t.id === r.task_key)) all.push({ id: r.task_key, type: r.task_type as FlowTask['type'] });
  const known = new Set(all.map((t) => t.id));
  const edges = all.flatMap((t) => (t.depends_on ?? []).filter((d) => known.has(d) && d !== t.id).map((d) => ({ from: d, to: t.id })));
  const g = new Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 60, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const t of all) g.setNode(t.id, { width: NODE_W, height: NODE_H });
  for (const e of edges) g.setEdge(e.from, e.to);
  layout(g);
  const nodes = all.map((t) => {
    const n = g.node(t.id) as { x: number; y: number };
    return { id: t.id, x: n.x - NODE_W / 2, y: n.y - NODE_H / 2 };
  });
  const width = Math.max(200, ...nodes.map((n) => n.x + NODE_W)) + 8;
  const height = Math.max(60, ...nodes.map((n) => n.y + NODE_H)) + 8;
  return { nodes, edges, width, height };
}
