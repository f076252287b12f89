// Small SVG charts: stacked bars per bucket, lines, and bars with a state
// colour. Drawn by hand: the dashboard needs three shapes, not a chart library.
import type { ReactNode } from 'react';
import { fmtDuration } from '../ui';

export interface StackSeries {
  key: string;
  label: string;
  className: string;
}

const CH = 160;

export function StackedBars({ buckets, series, labels, title }: { buckets: Record<string, number>[]; series: StackSeries[]; labels: string[]; title: string }) {
  const max = Math.max(1, ...buckets.map((b) => series.reduce((s, x) => s + (b[x.key] ?? 0), 0)));
  const bw = 100 / Math.max(buckets.length, 1);
  return (
    <figure className="chart" aria-label={title}>
      <svg viewBox={`0 0 100 ${CH}`} preserveAspectRatio="none" role="img" aria-label={`${title}: ${buckets.length} buckets, at most ${max} per bucket`}>
        {buckets.map((b, i) => {
          let y = CH;
          return (
            <g key={i}>
              <title>{`${labels[i]}: ${series.map((s) => `${s.label} ${b[s.key] ?? 0}`).join(', ')}`}</title>
              {series.map((s) => {
                const h = ((b[s.key] ?? 0) / max) * (CH - 4);
                y -= h;
                return h > 0 ? <rect key={s.key} className={s.className} x={i * bw + bw * 0.1} width={bw * 0.8} y={y} height={h} /> : null;
              })}
            </g>
          );
        })}
      </svg>
      <Legend items={series.map((s) => [s.className, s.label])} />
      <figcaption className="muted small">
        {labels[0]} – {labels[labels.length - 1]} · max {max}
      </figcaption>
    </figure>
  );
}

export function Lines({
  series,
  title,
  format = fmtDuration,
}: {
  series: { label: string; className: string; values: (number | undefined)[] }[];
  title: string;
  format?: (v: number) => string;
}) {
  const n = Math.max(1, ...series.map((s) => s.values.length));
  const max = Math.max(1, ...series.flatMap((s) => s.values.filter((v): v is number => v !== undefined)));
  const x = (i: number) => (n === 1 ? 50 : (i / (n - 1)) * 100);
  const y = (v: number) => CH - 4 - (v / max) * (CH - 8);
  return (
    <figure className="chart" aria-label={title}>
      <svg viewBox={`0 0 100 ${CH}`} preserveAspectRatio="none" role="img" aria-label={`${title}, up to ${format(max)}`}>
        {series.map((s) => {
          const pts = s.values.map((v, i) => (v === undefined ? null : `${x(i)},${y(v)}`)).filter(Boolean);
          // Each point also gets a short dash, so a lone value (one bucket with data) is visible.
          return (
            <g key={s.label} className={s.className}>
              <polyline points={pts.join(' ')} vectorEffect="non-scaling-stroke" fill="none" />
              {s.values.map((v, i) =>
                v === undefined ? null : <line key={i} x1={x(i) - 0.5} x2={x(i) + 0.5} y1={y(v)} y2={y(v)} vectorEffect="non-scaling-stroke" style={{ strokeWidth: 5 }} />,
              )}
            </g>
          );
        })}
      </svg>
      <Legend items={series.map((s) => [s.className, s.label])} />
      <figcaption className="muted small">max {format(max)}</figcaption>
    </figure>
  );
}

/** One bar per item, coloured by its class; used for the last-50 durations of a flow. */
export function Bars({
  items,
  title,
  format = fmtDuration,
}: {
  items: { value: number; className: string; label: string; href?: string }[];
  title: string;
  format?: (v: number) => string;
}) {
  const max = Math.max(1, ...items.map((i) => i.value));
  const bw = 100 / Math.max(items.length, 1);
  return (
    <figure className="chart" aria-label={title}>
      <svg viewBox={`0 0 100 ${CH}`} preserveAspectRatio="none" role="img" aria-label={`${title}: ${items.length} values, up to ${format(max)}`}>
        {items.map((it, i) => {
          const h = Math.max(1, (it.value / max) * (CH - 4));
          return (
            <rect key={i} className={it.className} x={i * bw + bw * 0.1} width={bw * 0.8} y={CH - h} height={h}>
              <title>{`${it.label}: ${format(it.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="muted small">max {format(max)}</figcaption>
    </figure>
  );
}

function Legend({ items }: { items: [string, ReactNode][] }) {
  return (
    <ul className="legend">
      {items.map(([cls, label], i) => (
        <li key={i}>
          <span className={`swatch ${cls}`} aria-hidden="true" /> {label}
        </li>
      ))}
    </ul>
  );
}
