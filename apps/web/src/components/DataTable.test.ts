// The shared list table as markup: its name, headers (the actions column read
// as "Actions"), one row per item with row headers and the opened row marked,
// the empty-state row across every column, and "Loading" until rows come
// (nothing when the load failed: the screen's ErrorBox says why).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as React from 'react';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { DataTableProps } from './DataTable.tsx';

// The test runner compiles from the repository root, where no tsconfig asks for
// the automatic JSX runtime: the component's JSX then calls React.createElement
// on a global React, so it is given one before the component loads.
(globalThis as { React?: typeof React }).React = React;
const { DataTable } = await import('./DataTable.tsx');

type Row = { id: string; name: string; size: number };
const base: DataTableProps<Row> = {
  label: 'Things',
  rows: [
    { id: 'a', name: 'alpha', size: 1 },
    { id: 'b', name: 'beta', size: 22 },
  ],
  rowKey: (r) => r.id,
  columns: [
    { header: 'Name', rowHeader: true, cell: (r) => r.name },
    { header: 'Size', className: 'num', cellTitle: (r) => `${r.size} bytes`, cell: (r) => r.size },
  ],
  empty: 'No things yet.',
};
const html = (p: Partial<DataTableProps<Row>>) => renderToStaticMarkup(createElement(DataTable<Row>, { ...base, ...p }));

describe('DataTable', () => {
  it('names the table and renders a header and a row per item', () => {
    const out = html({});
    assert.match(out, /^<table aria-label="Things"><thead><tr><th>Name<\/th><th class="num">Size<\/th><\/tr><\/thead>/);
    assert.match(out, /<tr><th scope="row">alpha<\/th><td class="num" title="1 bytes">1<\/td><\/tr>/);
    assert.match(out, /<tr><th scope="row">beta<\/th><td class="num" title="22 bytes">22<\/td><\/tr>/);
    assert.doesNotMatch(out, /No things yet/);
    assert.doesNotMatch(out, /Actions/);
  });

  it('adds an actions column whose header screen readers read, and marks the opened row', () => {
    const out = html({ actions: (r) => createElement('button', { type: 'button' }, `Delete ${r.name}`), selected: (r) => r.id === 'b' });
    assert.match(out, /<th><span class="sr-only">Actions<\/span><\/th><\/tr><\/thead>/);
    assert.match(out, /<tr class="selected"><th scope="row">beta<\/th>.*<td class="row"><button type="button">Delete beta<\/button><\/td><\/tr>/);
    assert.match(out, /<tr><th scope="row">alpha<\/th>/);
  });

  it('says the empty text across every column, actions included, and only when given', () => {
    assert.match(html({ rows: [], actions: () => null }), /<tbody><tr><td colSpan="3" class="muted">No things yet.<\/td><\/tr><\/tbody>/i);
    assert.match(html({ rows: [] }), /<td colSpan="2" class="muted">/i);
    assert.match(html({ rows: [], empty: undefined }), /<tbody><\/tbody>/);
  });

  it('shows Loading until the rows come, and nothing when the load failed', () => {
    assert.match(html({ rows: undefined, loading: 'the things' }), /^<p class="muted" role="status">Loading the things…<\/p>$/);
    assert.equal(html({ rows: undefined, error: new Error('down') }), '');
  });

  it('puts the rows given after the items', () => {
    const out = html({ after: createElement('tr', null, createElement('th', { scope: 'row' }, 'total')) });
    assert.match(out, /beta.*<tr><th scope="row">total<\/th><\/tr><\/tbody>/);
  });
});
