// A unified diff shown side by side: context on both sides, removals left,
// additions right, paired row by row within each change.
export interface DiffRow {
  left?: { n: number; text: string; kind: 'ctx' | 'del' };
  right?: { n: number; text: string; kind: 'ctx' | 'add' };
}

export function sideBySide(unified: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let ln = 0;
  let rn = 0;
  let dels: DiffRow['left'][] = [];
  let adds: DiffRow['right'][] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push({ left: dels[i], right: adds[i] });
    dels = [];
    adds = [];
  };
  for (const line of unified.split('\n')) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (h) {
      flush();
      ln = Number(h[1]);
      rn = Number(h[2]);
      rows.push({});
      continue;
    }
    if (line.startsWith('---') || line.startsWith('+++') || line.startsWith('Index') || line.startsWith('===') || line.startsWith('\\')) continue;
    if (line.startsWith('-')) dels.push({ n: ln++, text: line.slice(1), kind: 'del' });
    else if (line.startsWith('+')) adds.push({ n: rn++, text: line.slice(1), kind: 'add' });
    else if (line.startsWith(' ')) {
      flush();
      rows.push({ left: { n: ln++, text: line.slice(1), kind: 'ctx' }, right: { n: rn++, text: line.slice(1), kind: 'ctx' } });
    }
  }
  flush();
  return rows;
}

export function DiffView({ diff, leftTitle, rightTitle }: { diff: string; leftTitle: string; rightTitle: string }) {
  const rows = sideBySide(diff);
  if (!rows.some((r) => r.left?.kind === 'del' || r.right?.kind === 'add')) return <p className="muted">No differences.</p>;
  return (
    <table className="diff" aria-label={`Differences between ${leftTitle} and ${rightTitle}`}>
      <thead>
        <tr>
          <th colSpan={2}>{leftTitle}</th>
          <th colSpan={2}>{rightTitle}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) =>
          !r.left && !r.right ? (
            <tr key={i} className="hunk">
              <td colSpan={4}>⋯</td>
            </tr>
          ) : (
            <tr key={i}>
              <td className="ln">{r.left?.n}</td>
              <td className={r.left ? `code ${r.left.kind}` : 'code empty'}>{r.left?.text}</td>
              <td className="ln">{r.right?.n}</td>
              <td className={r.right ? `code ${r.right.kind}` : 'code empty'}>{r.right?.text}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
