import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
/**
 * The service's launcher: this checkout's, or the one `BENCH_SERVICE_LAUNCHER` names (another
 * checkout's `packages/api-server/bin/appliance-server`, built there: how a benchmark measures the
 * previous release beside this one, in the same session).
 */
const LAUNCHER =
  process.env['BENCH_SERVICE_LAUNCHER'] ?? path.join(REPO, 'packages/api-server/bin/appliance-server');
let built = process.env['BENCH_SERVICE_LAUNCHER'] !== undefined;

/**
 * The service's launcher as installations run it: `packages/api-server/bin/appliance-server`, the
 * built `dist/launcher.js` under the launcher's Node settings (`bash tools/start.sh` runs the same),
 * not the TypeScript sources, which cost ~30 MiB more resident memory for the type stripping and
 * the source-condition resolution. Builds it first (turbo: a cache hit when nothing changed), so a
 * benchmark never measures stale code.
 */
export function serviceCli(): string {
  if (!built) {
    execFileSync(
      'pnpm',
      ['exec', 'turbo', 'run', 'build', '--filter=@appliance/api-server...', '--output-logs=errors-only'],
      {
        cwd: REPO,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      },
    );
    built = true;
  }
  return LAUNCHER;
}

/**
 * The command and arguments that run a script: TypeScript files under this Node with the source
 * condition, the service's launcher directly (with this Node as its `APPLIANCE_NODE`).
 * `BENCH_SERVER_FLAGS` adds Node flags to the service's process only (a profiling aid, e.g.
 * `--trace-gc` or `--cpu-prof`); `BENCH_SERVER_LOG` (a file) keeps a copy of its stdout.
 */
export function command(script: string, env: NodeJS.ProcessEnv = process.env) {
  if (script === LAUNCHER) {
    const flags = env['BENCH_SERVER_FLAGS'] ?? '';
    return {
      file: LAUNCHER,
      args: [] as string[],
      env: { ...env, APPLIANCE_NODE: process.execPath, APPLIANCE_NODE_FLAGS: flags },
    };
  }
  const args = script.endsWith('.ts') ? ['--conditions=@appliance/source', script] : [script];
  return { file: process.execPath, args, env };
}

export interface Child {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a Node script that prints a JSON `{"msg":"listening","url":…}` line; resolves with its URL. */
export function startListening(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Child & { startedMs: number }> {
  const t0 = performance.now();
  const [script = '', ...rest] = args;
  const cmd = command(script, env);
  const child = spawn(cmd.file, [...cmd.args, ...rest], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: cmd.env,
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (!line) return;
      // From now on only drain the child's stdout (its request log): keeping or scanning it would
      // slow this process, and a slow reader blocks the server's log writes.
      child.stdout!.off('data', onData);
      const copy = script === LAUNCHER ? process.env['BENCH_SERVER_LOG'] : undefined;
      if (copy) child.stdout!.pipe(fs.createWriteStream(copy));
      else child.stdout!.on('data', () => undefined);
      out = '';
      resolve({
        url: JSON.parse(line).url,
        pid: child.pid!,
        child,
        startedMs: performance.now() - t0,
        stop: () =>
          new Promise<void>((r) => {
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening`)));
  });
}

/** The bare Hono hello-world (plain JavaScript: no type stripping loaded, so its memory is Hono's). */
export const startHelloWorld = () => startListening([path.join(import.meta.dirname, 'hello-world.mjs')]);

/** Resident memory of a process now (VmRSS), in MiB. */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/**
 * Resident memory of bare Node (an empty event loop kept alive) after `settleMs`, in MiB: the
 * issue's reference for the service's idle footprint, measured on the same Node binary.
 */
export async function bareNodeRssMiB(settleMs = 2000): Promise<number> {
  const child = spawn(process.execPath, ['--max-semi-space-size=2', '-e', 'setInterval(() => {}, 1e6)'], {
    stdio: 'ignore',
  });
  try {
    await new Promise((r) => setTimeout(r, settleMs));
    return rssMiB(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

/**
 * The real service (its launcher, `appliance-server`) in a fresh sandbox root on loopback, removed
 * at stop; or in `options.root`, an installation a previous start left (a restart), kept at stop.
 */
export async function startAppliance(
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  options: { root?: string } = {},
): Promise<Child & { root: string; socket: string; startedMs: number }> {
  const root = options.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-bench-'));
  const socketDir = fs.mkdtempSync('/tmp/apb-');
  const socket = path.join(socketDir, 'a.sock');
  const c = await startListening(
    [serviceCli(), '--root', root, '--listen', '127.0.0.1:0', '--socket', socket, ...extraArgs],
    env,
  );
  return {
    ...c,
    root,
    socket,
    stop: async () => {
      await c.stop();
      if (options.root === undefined) fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/** Creates the admin and an admin token through the API; returns the token. */
export async function adminToken(url: string): Promise<string> {
  const password = 'bench password 1';
  await fetch(`${url}/api/v1/setup/admin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const r = await fetch(`${url}/api/v1/tokens`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`,
    },
    body: JSON.stringify({ name: 'bench', role: 'admin' }),
  });
  return ((await r.json()) as { token: string }).token;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
  /** CPU time the server process used per answered request, in µs (when its pid was given). */
  cpuUsPerRequest: number | null;
  /** Every response's latency in ms (slices are combined from these, see `loadAlternating`). */
  latencies: number[];
}

/** User + system CPU time of a process and all its threads so far, in ms (Linux `/proc/<pid>/stat`). */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * autocannon with the shared defaults. With `serverPid`, also the server's CPU time per request: a
 * figure that does not move with the load generator's share of the CPUs, unlike requests/s.
 */
export async function load(opts: autocannon.Options, serverPid?: number): Promise<LoadResult> {
  const cpu0 = serverPid ? processCpuMs(serverPid) : 0;
  const latencies: number[] = [];
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ connections: 32, duration: 10, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) =>
      latencies.push(ms),
    );
  });
  const cpu = serverPid ? processCpuMs(serverPid) - cpu0 : null;
  return {
    latencies,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    requests: r.requests.total,
    cpuUsPerRequest: cpu === null || r.requests.total === 0 ? null : (cpu * 1000) / r.requests.total,
  };
}

/**
 * Measures two servers in alternating slices (default 5 × 2 s each, so 10 s measured each), and
 * combines each one's slices: requests/s over its measured time, p50 and p99 over every response's
 * latency of all slices, CPU per request over all slices. This VM's speed drifts by ±20 %
 * within half a minute (a hello-world measured 25–35k req/s in consecutive 3-s runs); measured one
 * after the other, that drift lands on the ratio, while alternating slices spread it over both.
 */
export async function loadAlternating(
  a: { opts: autocannon.Options; pid?: number },
  b: { opts: autocannon.Options; pid?: number },
  { slices = 5, sliceSeconds = 2 }: { slices?: number; sliceSeconds?: number } = {},
): Promise<[LoadResult, LoadResult]> {
  const runs: [LoadResult[], LoadResult[]] = [[], []];
  for (let i = 0; i < slices; i++) {
    runs[0].push(await load({ ...a.opts, duration: sliceSeconds }, a.pid));
    runs[1].push(await load({ ...b.opts, duration: sliceSeconds }, b.pid));
  }
  return [combine(runs[0], slices * sliceSeconds), combine(runs[1], slices * sliceSeconds)];
}

function combine(parts: LoadResult[], seconds: number): LoadResult {
  const requests = parts.reduce((n, r) => n + r.requests, 0);
  const cpu = parts.every((r) => r.cpuUsPerRequest !== null)
    ? parts.reduce((n, r) => n + (r.cpuUsPerRequest ?? 0) * r.requests, 0) / Math.max(requests, 1)
    : null;
  const latencies = parts.flatMap((r) => r.latencies);
  return {
    latencies,
    rps: requests / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: parts.reduce((n, r) => n + r.errors, 0),
    non2xx: parts.reduce((n, r) => n + r.non2xx, 0),
    requests,
    cpuUsPerRequest: cpu,
  };
}

export function report(title: string, rows: Record<string, unknown>): void {
  console.log(`\n## ${title}`);
  for (const [k, v] of Object.entries(rows))
    console.log(`${k.padEnd(36)} ${typeof v === 'number' ? Math.round(v * 100) / 100 : v}`);
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

/** One figure of a benchmark, beside its target and the reference measured in the same run. */
export interface Figure {
  figure: string;
  value: string;
  target: string;
  reference: string;
  /** null: informational (no target). */
  pass: boolean | null;
}

/**
 * Prints figures as a table and, when `BENCH_RESULTS` names a file, appends them to it as JSON lines
 * (tools/bench/all collects every benchmark's figures into one table that way). Returns whether every
 * figure with a target met it.
 */
export function figures(title: string, rows: Figure[]): boolean {
  const mark = (p: boolean | null) => (p === null ? '' : p ? 'met' : 'MISSED');
  const table = [
    ['figure', 'value', 'target', 'reference', ''],
    ...rows.map((r) => [r.figure, r.value, r.target, r.reference, mark(r.pass)]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  console.log(`\n## ${title}`);
  for (const [i, row] of table.entries()) {
    console.log(
      row
        .map((cell, j) => cell.padEnd(widths[j]!))
        .join('  ')
        .trimEnd(),
    );
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  const file = process.env['BENCH_RESULTS'];
  if (file) for (const r of rows) fs.appendFileSync(file, `${JSON.stringify({ bench: title, ...r })}\n`);
  return rows.every((r) => r.pass !== false);
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The machine's load averages as a string (measurements here share 2 cores with other work). */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
