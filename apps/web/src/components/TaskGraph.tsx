// The task graph of an execution, drawn with React Flow (@xyflow/react) on the
// layout of graph-layout.ts (dagre). Each node is coloured by the state of its
// task's latest attempt and is a button: a click, Enter or Space selects the
// task (the log view then shows only it). A fanned-out task (for_each) is one
// node, larger, with a live counter of its items by state. A task waiting for
// a person's approval carries a badge saying so, and one the gate ended
// (rejected, timed out) says how. The view pans (drag the background,
// or the arrow keys), zooms (the wheel, or + and -) and fits the whole graph
// (the "Fit" button, or 0); the buttons and the zoom level sit in the corner.
// Loaded on its own (Dag.tsx lazy-loads it): pages without a graph do not
// carry React Flow. The flow page draws a definition with it (no runs): there
// `describe` gives each node its second line and name instead of a state.
import { useCallback, useMemo, useRef, type KeyboardEvent } from 'react';
import { Handle, MiniMap, Panel, Position, ReactFlow, ReactFlowProvider, useReactFlow, useViewport, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/base.css';
import type { FlowTask, TaskRun } from '../types';
import { latestRuns, layoutGraph } from './graph-layout';
import { approvalNote } from './approvals';
import { itemCounter, taskAttempts } from './task-runs';

export interface TaskGraphProps {
  tasks: FlowTask[];
  runs: TaskRun[];
  selected?: string;
  onSelect: (task: string | undefined) => void;
  /** A definition's graph: each task's kind (a CSS class), second line and accessible name, instead of its run state. */
  describe?: (task: FlowTask) => NodeText;
}

export interface NodeText {
  kind: string;
  sub: string;
  label: string;
}

interface TaskData extends Record<string, unknown> {
  id: string;
  state: string;
  reused: boolean;
  attempts: number;
  percent?: number;
  /** A fanned-out task: "12 items: 5 done, 3 running, 2 failed". */
  counter?: string;
  /** The approval gate's part: "awaiting approval", "rejected", "approval timed out". */
  note?: string;
  w: number;
  h: number;
  selected: boolean;
  text?: NodeText;
  onSelect: (id: string) => void;
  onFocus: (id: string) => void;
}

type TaskNodeType = Node<TaskData, 'task'>;

function TaskNode({ data }: NodeProps<TaskNodeType>) {
  const { id, state, reused, attempts, percent, counter, note, w, h, selected, text } = data;
  if (text)
    return (
      <>
        <Handle type="target" position={Position.Left} isConnectable={false} />
        <button
          type="button"
          className={`dag-node def-${text.kind}${selected ? ' selected' : ''}`}
          style={{ width: w, height: h }}
          aria-pressed={selected}
          aria-label={text.label}
          title={text.sub}
          onClick={() => data.onSelect(id)}
          onFocus={() => data.onFocus(id)}
        >
          <span className="dag-title">{id}</span>
          <span className="dag-sub">{text.sub}</span>
        </button>
        <Handle type="source" position={Position.Right} isConnectable={false} />
      </>
    );
  return (
    <>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <button
        type="button"
        className={`dag-node state-${state.toLowerCase()}${counter ? ' fan-out' : ''}${selected ? ' selected' : ''}`}
        style={{ width: w, height: h }}
        aria-pressed={selected}
        aria-label={`Task ${id}: ${state}${note ? `, ${note}` : ''}${reused ? ', reused' : ''}${counter ? `, ${counter}` : ''}`}
        title={counter}
        onClick={() => data.onSelect(id)}
        onFocus={() => data.onFocus(id)}
      >
        <span className="dag-title">{id}</span>
        <span className={`dag-sub${note ? ' dag-noted' : ''}`}>
          {/* Waiting for approval says more than PENDING, on a line the node has room for (the name says both). */}
          {note === 'awaiting approval' ? '' : state}
          {reused ? ' · reused' : ''}
          {attempts > 1 ? ` · ${attempts} attempts` : ''}
          {percent !== undefined && state === 'RUNNING' ? ` · ${Math.round(percent)}%` : ''}
          {note && (
            <>
              {' '}
              <span className={`badge dag-note${note === 'awaiting approval' ? ' awaiting' : ''}`} data-testid={`task-note-${id}`}>
                {note}
              </span>
            </>
          )}
        </span>
        {counter && (
          <span className="dag-sub dag-items" data-testid={`items-counter-${id}`}>
            {counter}
          </span>
        )}
      </button>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </>
  );
}

const NODE_TYPES = { task: TaskNode };
const PAN_STEP = 60;
const FIT = { padding: 0.15, maxZoom: 1 };

function Graph({ tasks, runs, selected, onSelect, describe }: TaskGraphProps) {
  const flow = useReactFlow<TaskNodeType>();
  const { zoom } = useViewport();
  const box = useRef<HTMLDivElement>(null);
  const shape = graphShape(tasks, runs);
  // Laid out again only when tasks or dependencies change, not on every state change.
  const layout = useMemo(() => layoutGraph(tasks, runs), [shape]);
  const toggle = useCallback((id: string) => onSelect(selected === id ? undefined : id), [onSelect, selected]);
  // A node reached with Tab that lies outside the view is brought into it.
  const reveal = useCallback(
    (id: string) => {
      const el = box.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"]`);
      const outer = box.current?.getBoundingClientRect();
      const r = el?.getBoundingClientRect();
      if (!outer || !r) return;
      if (r.left >= outer.left && r.right <= outer.right && r.top >= outer.top && r.bottom <= outer.bottom) return;
      const n = layout.nodes.find((x) => x.id === id);
      if (n) void flow.setCenter(n.x + n.w / 2, n.y + n.h / 2, { zoom: flow.getZoom() });
    },
    [flow, layout],
  );

  const nodes: TaskNodeType[] = useMemo(() => {
    const latest = latestRuns(runs);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    return layout.nodes.map((n) => {
      const run = latest.get(n.id);
      const task = byId.get(n.id);
      return {
        id: n.id,
        type: 'task',
        position: { x: n.x, y: n.y },
        width: n.w,
        height: n.h,
        // React Flow turns pointer events off on nodes neither draggable nor selectable: the task button takes clicks.
        style: { pointerEvents: 'all' as const },
        data: {
          id: n.id,
          state: run?.state ?? 'PENDING',
          reused: !!run?.reused_from_id,
          attempts: taskAttempts(runs, n.id).length,
          percent: run?.progress?.percent,
          counter: describe ? undefined : itemCounter(run, task?.for_each !== undefined),
          note: describe ? undefined : approvalNote(run),
          w: n.w,
          h: n.h,
          selected: selected === n.id,
          text: describe && task ? describe(task) : undefined,
          onSelect: toggle,
          onFocus: reveal,
        },
      };
    });
  }, [layout, runs, selected, toggle, reveal, tasks, describe]);
  const edges: Edge[] = useMemo(() => {
    const latest = latestRuns(runs);
    return layout.edges.map((e) => ({
      id: `${e.from}->${e.to}`,
      source: e.from,
      target: e.to,
      // The edge into a running task moves, as the work flows along it.
      animated: latest.get(e.to)?.state === 'RUNNING',
      focusable: false,
    }));
  }, [layout, runs]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const onBackground = e.target === e.currentTarget;
    const vp = flow.getViewport();
    const pan = (dx: number, dy: number) => void flow.setViewport({ ...vp, x: vp.x + dx, y: vp.y + dy });
    const keys: Record<string, () => void> = {
      '+': () => void flow.zoomIn(),
      '=': () => void flow.zoomIn(),
      '-': () => void flow.zoomOut(),
      '0': () => void flow.fitView(FIT),
    };
    // Arrow keys pan only when the graph itself has focus: on a node they stay the browser's.
    if (onBackground)
      Object.assign(keys, { ArrowLeft: () => pan(PAN_STEP, 0), ArrowRight: () => pan(-PAN_STEP, 0), ArrowUp: () => pan(0, PAN_STEP), ArrowDown: () => pan(0, -PAN_STEP) });
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  };

  // Tall enough for the graph at full size, within what a laptop screen spares.
  const height = Math.min(Math.max(layout.height + 40, 140), 460);
  return (
    <div ref={box} className="dag" style={{ height }} role="group" aria-label="Task graph" aria-describedby="dag-keys" tabIndex={0} onKeyDown={onKeyDown} data-testid="task-graph">
      <span id="dag-keys" className="sr-only">
        Drag or use the arrow keys to pan, the wheel or plus and minus to zoom, 0 to fit the whole graph.
      </span>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        fitView
        fitViewOptions={FIT}
        minZoom={0.1}
        maxZoom={2.5}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        zoomOnDoubleClick={false}
        preventScrolling
        proOptions={{ hideAttribution: true }}
      >
        <Panel position="top-right" className="dag-controls">
          <button type="button" onClick={() => void flow.zoomIn()} aria-label="Zoom in" title="Zoom in (+)">
            +
          </button>
          <button type="button" onClick={() => void flow.zoomOut()} aria-label="Zoom out" title="Zoom out (−)">
            −
          </button>
          <button type="button" onClick={() => void flow.fitView(FIT)} aria-label="Fit the graph to the view" title="Fit (0)">
            Fit
          </button>
          <span className="muted small" data-testid="graph-zoom" aria-live="polite">
            {Math.round(zoom * 100)}%
          </span>
        </Panel>
        {layout.nodes.length > 8 && (
          <MiniMap pannable zoomable ariaLabel="Overview of the task graph" nodeClassName={(n) => `state-${String((n.data as TaskData).state).toLowerCase()}`} />
        )}
      </ReactFlow>
    </div>
  );
}

/** What the layout depends on: the task keys and their dependencies. */
function graphShape(tasks: FlowTask[], runs: TaskRun[]): string {
  const keys = new Set(tasks.map((t) => `${t.id}<${(t.depends_on ?? []).join(',')}${t.for_each !== undefined ? '*' : ''}`));
  for (const r of runs) if (!tasks.some((t) => t.id === r.task_key)) keys.add(`${r.task_key}${r.item_counts ? '*' : ''}`);
  return [...keys].join('\n');
}

export default function TaskGraph(props: TaskGraphProps) {
  // The shape decides the first fit: a new one (the definition arrived) remounts and fits again.
  return (
    <ReactFlowProvider key={graphShape(props.tasks, props.runs)}>
      <Graph {...props} />
    </ReactFlowProvider>
  );
}
