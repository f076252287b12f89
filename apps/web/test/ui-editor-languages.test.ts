// The code editor in the browser: hover docs from the served flow schema on a
// flow file's keys (top-level and inside a task), and syntax highlighting of
// Python, shell, TypeScript and JavaScript files (keywords, strings and
// comments each in their own colour, unlike plain text).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, shot, startUi, type Ui } from './browser.ts';

const skip = browserSkipReason();
const NS = 'web.langs';
const FLOW = `id: langs
max_parallel: 2
tasks:
  - id: first
    type: command
    command: ["echo", "one"]
  - id: second
    type: command
    depends_on: [first]
    retry:
      max_attempts: 2
    command: ["echo", "two"]
`;
const FILES: Record<string, string> = {
  'langs.flow.yaml': FLOW,
  'job.py': '# a comment\ndef main():\n    return "python string"\n',
  'run.sh': '#!/bin/sh\n# a comment\nif true; then mytool "shell string"; fi\n',
  'lib.ts': '// a comment\nexport interface Point { x: number }\nconst s: string = "typescript string";\n',
  'util.js': '// a comment\nfunction add(a, b) { return "javascript string"; }\n',
};

describe('editor: hover docs and highlighting', { skip, concurrency: false }, () => {
  let ui: Ui;

  before(async () => {
    ui = await startUi();
    await ui.stack.saveFlow(NS, FILES);
  });
  after(async () => ui?.stop());

  async function open(page: Page, file: string) {
    await page.goto(`/editor/${NS}?file=${encodeURIComponent(file)}`);
    const firstLine = FILES[file]!.split('\n')[1]!.trim();
    await page.waitForFunction((t) => document.querySelector('.cm-content')?.textContent?.includes(t), firstLine);
  }

  /**
   * Hovers the first occurrence of `text` in the editor and returns the hover
   * tooltip's text; with `key`, only where a line starts with it (a key, not a value).
   */
  async function hover(page: Page, text: string, key = false): Promise<string> {
    const box = await page.evaluate(
      ([t, k]) => {
        const walker = document.createTreeWalker(document.querySelector('.cm-content')!, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = n.textContent!.indexOf(t);
          if (at < 0) continue;
          if (k && !n.parentElement!.closest('.cm-line')!.textContent!.trim().startsWith(`${t}:`)) continue;
          const r = document.createRange();
          r.setStart(n, at + 1);
          r.setEnd(n, at + 2);
          const b = r.getBoundingClientRect();
          return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
        }
        return null;
      },
      [text, key] as const,
    );
    assert.ok(box, `"${text}" is in the editor`);
    await page.mouse.move(0, 0);
    await page.locator('.cm-tooltip-hover').waitFor({ state: 'detached' });
    await page.mouse.move(box.x, box.y);
    const tip = page.locator('.cm-tooltip-hover');
    await tip.waitFor();
    return tip.innerText();
  }

  it("shows the schema's docs when hovering a key of a flow file", async () => {
    const page = ui.admin;
    await open(page, 'langs.flow.yaml');
    assert.match(await hover(page, 'max_parallel'), /Maximum tasks of one execution running at the same time/);
    await shot(page, 'editor-hover-01-top-level');
    assert.match(await hover(page, 'tasks'), /The tasks of the flow/);
  });

  // Inside a task: codemirror-json-schema's own schema lookup loses a task's
  // properties (a $ref to a definition with allOf/if/then); the editor looks
  // the key up in the flow schema itself (src/editor/schema-at.ts).
  it("shows the schema's docs when hovering a key inside a task", async () => {
    const page = ui.admin;
    await open(page, 'langs.flow.yaml');
    assert.match(await hover(page, 'depends_on'), /Ids of the tasks that must end before this one starts/);
    await shot(page, 'editor-hover-02-task-key');
    // A key only a command task has (declared in the type's if/then rule).
    assert.match(await hover(page, 'command', true), /argv templates, run without a shell/);
    // A $ref'd object: the task's own description, then into the definition.
    assert.match(await hover(page, 'retry'), /Retry policy of this task; overrides the flow retry\.\s+object/);
    assert.match(await hover(page, 'max_attempts'), /Attempts in total, counting the first one/);
  });

  /** The colour of the highlighted token holding `text`, or of the line's plain text when no token holds it. */
  const colourOf = (page: Page, text: string) =>
    page.evaluate((t) => {
      const spans = [...document.querySelectorAll('.cm-content .cm-line span')].filter((s) => s.textContent!.includes(t) && s.children.length === 0);
      const el = spans[0] ?? [...document.querySelectorAll('.cm-content .cm-line')].find((l) => l.textContent!.includes(t));
      return el ? getComputedStyle(el).color : null;
    }, text);

  for (const [file, lang, keyword, str, plain] of [
    ['job.py', 'Python', 'def', '"python string"', 'main'],
    ['run.sh', 'shell', 'if', '"shell string"', 'mytool'],
    ['lib.ts', 'TypeScript', 'interface', '"typescript string"', 'Point'],
    ['util.js', 'JavaScript', 'function', '"javascript string"', 'add'],
  ] as const) {
    it(`highlights ${lang}: keywords, strings and comments apart from plain text`, async () => {
      const page = ui.admin;
      await open(page, file);
      const base = await page.evaluate(() => getComputedStyle(document.querySelector('.cm-content')!).color);
      // The language loads lazily and the parser styles the text in slices: read again until every token is styled (or give up and report).
      let kw: string | null = null;
      let s: string | null = null;
      let comment: string | null = null;
      for (const until = Date.now() + 15_000; ;) {
        [kw, s, comment] = [await colourOf(page, keyword), await colourOf(page, str), await colourOf(page, 'a comment')];
        if ((kw && s && comment && kw !== base && s !== base && comment !== base && kw !== s && s !== comment) || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(kw && s && comment, `${lang}: tokens found`);
      assert.notEqual(kw, base, `${lang}: "${keyword}" is highlighted`);
      assert.notEqual(s, base, `${lang}: the string is highlighted`);
      assert.notEqual(comment, base, `${lang}: the comment is highlighted`);
      assert.notEqual(kw, s, `${lang}: keyword and string differ`);
      assert.notEqual(s, comment, `${lang}: string and comment differ`);
      // Plain text is not painted as any of those.
      assert.notEqual(await colourOf(page, plain), kw);
      await shot(page, `editor-highlight-${file.replace('.', '-')}`);
    });
  }
});
