// The process executor spawns task processes through a small helper process
// (SpawnHelper, in Perl or in Node): the task must behave exactly as when
// spawned directly — output, exit code, back-pressure, the process group
// killed on cancel, its environment, working directory, session, signals
// and user — and a helper that dies must not leave a task running or a run
// waiting forever. Every test runs against both helpers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runTask, SpawnHelper } from '../src/index.js';
import { directSpawn, type SpawnFn, type SpawnOpts } from '../src/process.js';
import type { Invocation } from '../src/resolve.js';
import { findPerl, type SpawnHelperRuntime } from '../src/spawn-helper.js';
import { makeSpec, MemoryTransport, pidAlive, scratchRoots } from '../src/testing/index.js';

const root = scratchRoots();
const runtimes: SpawnHelperRuntime[] = ['node'];
if (findPerl()) runtimes.push('perl');
else process.stderr.write('\n!! no perl on the PATH: the Perl spawn helper is not tested here\n\n');

test('the default helper is the Perl one where a perl is on the PATH', () => {
  const h = new SpawnHelper();
  assert.equal(h.runtime, findPerl() ? 'perl' : 'node');
  h.close();
});

/** Runs `file args` with `spawn` and returns its stdout, stderr and exit. */
async function capture(spawn: SpawnFn, file: string, args: string[], env: Record<string, string>, ids: { uid?: number; gid?: number } = {}) {
  const c = await spawn({ file, args, argv0: path.basename(file) }, { cwd: '/tmp', env, ...ids });
  const read = (s: NodeJS.ReadableStream) =>
    new Promise<string>((resolve) => {
      let t = '';
      s.on('data', (d) => (t += d));
      s.on('end', () => resolve(t));
    });
  const [out, err, exit] = await Promise.all([read(c.stdout), read(c.stderr), new Promise((r) => c.onExit((code, signal) => r({ code, signal })))]);
  return { out: out.replaceAll(String(c.pid), 'PID'), err, exit };
}

for (const runtime of runtimes)
  describe(`the ${runtime} spawn helper`, () => {
    const helper = new SpawnHelper({ runtime });
    after(() => helper.close());
    async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
      const end = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > end) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    test('through the helper: stdout and stderr lines in order, the exit code and the last stderr line in the error', async () => {
      const script = 'for i in 1 2 3; do echo "out $i"; done; echo "err 1" >&2; echo "$SVC_TASK_ID" ; exit 3';
      const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script], env: { SVC_TASK_ID: 'via-helper' } }));
      const c = await runTask({ transport: t, workRoot: await root(), spawn: helper.spawn });
      assert.equal(c.state, 'FAILED');
      assert.equal(c.exit_code, 3);
      assert.equal(c.error, 'exit code 3: err 1');
      assert.deepEqual(t.text('stdout'), ['out 1', 'out 2', 'out 3', 'via-helper']);
      assert.deepEqual(t.text('stderr'), ['err 1']);
      assert.ok(helper.helperPid && helper.helperPid !== process.pid, 'a separate helper process spawned it');
    });

    test('through the helper: a large output arrives whole (50,000 lines)', async () => {
      const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', 'seq 1 50000'] }));
      const c = await runTask({ transport: t, workRoot: await root(), spawn: helper.spawn, logBatchLines: 500 });
      assert.equal(c.state, 'SUCCESS');
      const lines = t.text('stdout');
      assert.equal(lines.length, 50000);
      assert.equal(lines[0], '1');
      assert.equal(lines[49999], '50000');
    });

    test('through the helper: cancel kills the whole process group, a child ignoring SIGTERM included', async () => {
      const workRoot = await root();
      const pidFile = path.join(workRoot, 'child.pid');
      const ac = new AbortController();
      const script = `bash -c 'trap "" TERM; while true; do sleep 0.05; done' & echo $! > ${pidFile}; echo started; wait`;
      const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', script] }));
      const run = runTask({ transport: t, workRoot, signal: ac.signal, killDelayMs: 300, logBatchMs: 5, spawn: helper.spawn });
      await waitFor(() => t.text().includes('started'));
      ac.abort();
      const c = await run;
      assert.equal(c.state, 'CANCELLED');
      await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 10_000);
    });

    test('a helper that dies mid-task: the task is killed and reported, and the next task gets a new helper', async () => {
      const own = new SpawnHelper({ runtime });
      try {
        const workRoot = await root();
        const pidFile = path.join(workRoot, 'task.pid');
        const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `echo $$ > ${pidFile}; echo started; sleep 30`] }));
        const run = runTask({ transport: t, workRoot, killDelayMs: 300, logBatchMs: 5, spawn: own.spawn });
        await waitFor(() => t.text().includes('started'));
        const first = own.helperPid!;
        process.kill(first, 'SIGKILL');
        const c = await run;
        assert.equal(c.state, 'FAILED');
        assert.match(c.error, /SIGKILL/);
        await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 10_000);
        const t2 = new MemoryTransport(makeSpec({ command: ['echo', 'again'] }));
        const c2 = await runTask({ transport: t2, workRoot, spawn: own.spawn });
        assert.equal(c2.state, 'SUCCESS');
        assert.deepEqual(t2.text('stdout'), ['again']);
        assert.notEqual(own.helperPid, first);
      } finally {
        own.close();
      }
    });

    test('through the helper: a leftover holding the output open does not keep a finished task running', async () => {
      const workRoot = await root();
      const pidFile = path.join(workRoot, 'bg.pid');
      const t = new MemoryTransport(makeSpec({ command: ['bash', '-c', `sleep 30 & echo $! > ${pidFile}; echo done`] }));
      const started = Date.now();
      const c = await runTask({ transport: t, workRoot, killDelayMs: 500, spawn: helper.spawn });
      assert.equal(c.state, 'SUCCESS');
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 10_000);
    });

    test('through the helper: 100 short tasks at once each deliver all their output, however their exit and output interleave', { timeout: 30_000 }, async () => {
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => capture(helper.spawn, '/bin/sh', ['-c', `printf 'out ${i}\\n'; printf 'err ${i}\\n' >&2; exit ${i % 7}`], {})),
      );
      results.forEach((r, i) => assert.deepEqual(r, { out: `out ${i}\n`, err: `err ${i}\n`, exit: { code: i % 7, signal: null } }));
    });

    test('through the helper: the same environment, directory, session, signals and exit as a direct spawn', async () => {
      // The session and group are the process's own; no signal ignored or blocked; the environment exactly the given one.
      const script = 'env | sort; pwd; ps -o pid=,pgid=,sid= -p $$; grep -E "^Sig(Ign|Blk)" /proc/self/status; echo to-err >&2; kill -PIPE $$';
      const env = { ONLY: 'this one', 'WITH=EQUALS': 'a=b', EMPTY: '', UNICODE: 'žluť 😀' };
      const direct = await capture(directSpawn, '/bin/bash', ['-c', script], env);
      const helped = await capture(helper.spawn, '/bin/bash', ['-c', script], env);
      assert.match(direct.out, /ONLY=this one/);
      assert.match(direct.out, /PID +PID +PID/);
      assert.deepEqual(helped, direct);
      assert.deepEqual(helped.exit, { code: null, signal: 'SIGPIPE' });
    });

    test('through the helper: a missing command, a bad working directory and a NUL byte fail as a direct spawn does', async () => {
      const cases: [Invocation, SpawnOpts][] = [
        [
          { file: '/no/such/command', args: [], argv0: 'x' },
          { cwd: '/tmp', env: {} },
        ],
        [
          { file: '/bin/true', args: [], argv0: 'true' },
          { cwd: '/no/such/dir', env: {} },
        ],
      ];
      for (const [inv, opts] of cases) {
        const direct = await directSpawn(inv, opts).then(
          () => 'started',
          (e: NodeJS.ErrnoException) => e.code,
        );
        const helped = await helper.spawn(inv, opts).then(
          () => 'started',
          (e: NodeJS.ErrnoException) => e.code,
        );
        assert.equal(direct, 'ENOENT');
        assert.equal(helped, direct);
      }
      await assert.rejects(helper.spawn({ file: '/bin/echo', args: ['a\0b'], argv0: 'echo' }, { cwd: '/tmp', env: {} }), { code: 'ERR_INVALID_ARG_VALUE' });
      // The helper still serves the next task.
      assert.equal((await capture(helper.spawn, '/bin/echo', ['next'], {})).out, 'next\n');
    });

    test('through the helper, as root: the task user, its group and no supplementary groups, as a direct spawn', { skip: process.getuid?.() !== 0 && 'needs root' }, async () => {
      const ids = { uid: 65534, gid: 65534 };
      const direct = await capture(directSpawn, '/bin/sh', ['-c', 'id -u; id -g; id -G; grep -E "^(Uid|Gid|Groups)" /proc/self/status'], {}, ids);
      const helped = await capture(helper.spawn, '/bin/sh', ['-c', 'id -u; id -g; id -G; grep -E "^(Uid|Gid|Groups)" /proc/self/status'], {}, ids);
      assert.match(direct.out, /^65534\n65534\n65534\n/);
      // No supplementary group beyond the task's own: libuv sets none, Perl's `$)` sets the gid itself (the same rights).
      const groups = (o: string) => o.replace(/^Groups:\t(65534)? \n/m, 'Groups: only the gid\n');
      assert.deepEqual({ ...helped, out: groups(helped.out) }, { ...direct, out: groups(direct.out) });
      assert.match(groups(helped.out), /Groups: only the gid/);
    });
  });
