// Where each task of an execution's graph sits: dagre's layered (Sugiyama)
// layout, left to right, so dependencies read from left to right and edges
// cross as little as dagre can manage. Pure (no DOM), so it is unit-tested.
import { Graph, layout } from '@dagrejs/dagre';
import type { FlowTask, TaskRun } from '../types';

export { latestRuns } from './task-runs';

export const NODE_W = 170;
export const NODE_H = 44;
/** A fanned-out task's node: wider and one line taller, for its item counter. */
export const FAN_NODE_W = 300;
export const FAN_NODE_H = 60;

export interface GraphNode {
  id: string;
  /** Top-left corner. */
  x: number;
  y: number;
  /** Width and height: a fanned-out task's node is larger (FAN_NODE_W, FAN_NODE_H). */
  w: number;
  h: number;
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
  // A task fans out when its definition has for_each or its runs have items (a file run's task).
  const fans = new Set(all.filter((t) => t.for_each !== undefined).map((t) => t.id));
  for (const r of runs) if (r.item_counts || (r.item_index !== undefined && r.item_index !== null)) fans.add(r.task_key);
  const size = (id: string) => (fans.has(id) ? { width: FAN_NODE_W, height: FAN_NODE_H } : { width: NODE_W, height: NODE_H });
  for (const t of all) g.setNode(t.id, size(t.id));
  for (const e of edges) g.setEdge(e.from, e.to);
  layout(g);
  const nodes = all.map((t) => {
    const n = g.node(t.id) as { x: number; y: number };
    const { width: w, height: h } = size(t.id);
    return { id: t.id, x: n.x - w / 2, y: n.y - h / 2, w, h };
  });
  const width = Math.max(200, ...nodes.map((n) => n.x + n.w)) + 8;
  const height = Math.max(60, ...nodes.map((n) => n.y + n.h)) + 8;
  return { nodes, edges, width, height };
}
