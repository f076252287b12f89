// The docs hold together: every relative link (and its #anchor) in README.md
// and docs/**/*.md resolves to a file in the repository (and a heading of
// it), every page under docs/ is linked from the README or another page, and
// every variable of the config catalogue is documented under docs/. The
// checker is run first against a small tree with known faults, so a checker
// that finds nothing cannot pass for docs that are sound.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeConfig } from '@svc/config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** README.md and every .md file under docs/, as paths relative to `dir`. */
function docFiles(dir: string): string[] {
  const out = ['README.md'];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = path.posix.join(rel, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  if (fs.existsSync(path.join(dir, 'docs'))) walk('docs');
  return out.sort();
}

/** The text outside fenced code blocks, with inline code spans removed (links in code are not links). */
function prose(text: string): string {
  let fenced = false;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      lines.push('');
      continue;
    }
    lines.push(fenced ? '' : line.replace(/``[^`]*``|`[^`\n]*`/g, ''));
  }
  return lines.join('\n');
}

/** Link targets: inline links and images, and reference definitions. */
function linkTargets(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const refs = [...body.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s.*)?$/gm)].map((m) => m[1]!);
  return [...inline, ...refs];
}

/** GitHub's anchor of each heading (lower case, punctuation dropped, spaces to hyphens, -1, -2... for repeats), and explicit ids. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const plain = h[1]!
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<[^>]+>/g, '')
        .replace(/[`*]/g, '');
      const base = plain
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  }
  return out;
}

/** Every fault of the docs under `dir`: broken links or anchors, and pages nothing links to. */
function linkFaults(dir: string): string[] {
  const faults: string[] = [];
  const files = docFiles(dir);
  const linked = new Set<string>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const target of linkTargets(text)) {
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // absolute URLs are not checked
      const hash = target.indexOf('#');
      const rawPath = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      let rel: string;
      try {
        rel = rawPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(rawPath)));
      } catch {
        faults.push(`${file}: link ${target}: not a valid path`);
        continue;
      }
      if (rel.startsWith('../') || path.posix.isAbsolute(rel)) {
        faults.push(`${file}: link ${target}: leaves the repository`);
        continue;
      }
      const abs = path.join(dir, rel);
      if (!fs.existsSync(abs)) {
        faults.push(`${file}: link ${target}: ${rel} does not exist`);
        continue;
      }
      if (rel !== file) linked.add(rel.replace(/\/$/, ''));
      if (anchor !== undefined && anchor !== '') {
        if (!rel.endsWith('.md')) faults.push(`${file}: link ${target}: an anchor into a file that is not markdown`);
        else if (!anchors(fs.readFileSync(abs, 'utf8')).has(anchor)) faults.push(`${file}: link ${target}: ${rel} has no heading #${anchor}`);
      }
    }
  }
  for (const file of files) {
    if (file.startsWith('docs/') && !linked.has(file)) faults.push(`${file}: no page links to it (link it from README.md or another page)`);
  }
  return faults;
}

test('the link checker finds a missing file, a missing anchor, a link out of the repository and an unlinked page', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-check-'));
  try {
    fs.mkdirSync(path.join(dir, 'docs/using'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'README.md'),
      [
        '# svc',
        '[good](docs/using/flows.md#a-heading-with-code) [web](https://example.com/x.md) [self](#svc)',
        '`[in code](docs/nowhere.md)`',
        '```md',
        '[in a fence](docs/nowhere.md)',
        '```',
        '[missing](docs/using/nowhere.md) [bad anchor](docs/using/flows.md#no-such-heading) [out](../outside.md)',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'docs/using/flows.md'), '# Flows\n\n## A heading, with `code`\n\n[back](../../README.md#svc)\n');
    fs.writeFileSync(path.join(dir, 'docs/using/orphan.md'), '# Nobody links here\n');
    assert.deepEqual(linkFaults(dir), [
      'README.md: link docs/using/nowhere.md: docs/using/nowhere.md does not exist',
      'README.md: link docs/using/flows.md#no-such-heading: docs/using/flows.md has no heading #no-such-heading',
      'README.md: link ../outside.md: leaves the repository',
      'docs/using/orphan.md: no page links to it (link it from README.md or another page)',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every relative link and anchor in README.md and docs/ resolves, and every page is linked', () => {
  const files = docFiles(root);
  assert.ok(files.length > 10, `found only ${files.join(', ')}`);
  assert.deepEqual(linkFaults(root), []);
});

test('every variable of the config catalogue is documented under docs/', () => {
  const docs = docFiles(root)
    .filter((f) => f.startsWith('docs/'))
    .map((f) => fs.readFileSync(path.join(root, f), 'utf8'))
    .join('\n');
  const missing = describeConfig()
    .map((v) => v.variable)
    .filter((name) => !docs.includes(`\`${name}\``));
  assert.deepEqual(missing, [], 'document these in docs/operating/configuration.md: run node scripts/readme-config.mjs');
});
