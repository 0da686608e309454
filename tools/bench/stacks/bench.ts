/**
 * Issue 35's figures, on a private dockerd (root), the real docker-compose and the service
 * in-process (`startSandbox`):
 *
 *   A. start and stop of a 3-service stack through the service (POST /stacks/:name/start|stop,
 *      the job followed to its end) against `docker-compose up -d` / `stop` by hand on an identical
 *      stack (same flags: project name, folder, file, .env), rounds alternated, medians compared.
 *      Target: service / by hand ≤ 1.2 for each.
 *   B. GET /stacks with --stacks stacks (two of them running): p50 and p95 over --gets requests.
 *      Target: p50 < 50 ms.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    stacks: { type: 'string', default: '50' },
    gets: { type: 'string', default: '200' },
  },
});
const ROUNDS = Number(values.rounds);
const STACKS = Number(values.stacks);
const GETS = Number(values.gets);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

const compose = (image: string) => `services:
${['web', 'api', 'worker']
  .map(
    (svc) => `  ${svc}:
    image: ${image}
    command: ["sleep", "3600"]
    network_mode: none
    stop_signal: SIGKILL
`,
  )
  .join('')}`;

async function waitJob(s: Sandbox, id: string): Promise<void> {
  for (;;) {
    const r = await s.call('GET', `/jobs/${id}`);
    if (!['queued', 'running'].includes(r.body.state)) {
      if (r.body.state !== 'succeeded') throw new Error(`job ${id}: ${r.text}`);
      return;
    }
    await new Promise((res) => setTimeout(res, 20));
  }
}

async function main() {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  const previous = process.env['DOCKER_HOST'];
  let dockerd: PrivateDockerd | null = null;
  let s: Sandbox | null = null;
  try {
    dockerd = await startPrivateDockerd();
    process.env['DOCKER_HOST'] = dockerd.host;
    s = await startSandbox({ config: { logLevel: 'silent' } });
    const daemon = dockerd;
    for (const name of ['svc', 'hand']) {
      const r = await s.call('POST', '/stacks', { name, compose: compose(dockerd.busyboxImage) });
      if (r.status !== 201) throw new Error(r.text);
    }
    const dir = path.join(s.root, 'var/lib/appliance/stacks/hand');
    const byHand = (...args: string[]) =>
      run(
        'docker-compose',
        [
          '--ansi',
          'never',
          '--project-name',
          'hand',
          '--project-directory',
          dir,
          '--file',
          path.join(dir, 'docker-compose.yml'),
          '--env-file',
          path.join(dir, '.env'),
          ...args,
        ],
        {
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', DOCKER_HOST: daemon.host, LC_ALL: 'C.UTF-8' },
        },
      );
    const viaService = async (verb: 'start' | 'stop') => {
      const r = await s!.call('POST', `/stacks/svc/${verb}`, {});
      if (r.status !== 202) throw new Error(r.text);
      await waitJob(s!, r.body.id);
    };
    const timed = async (fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    // one warm-up of each (containers created once, images cached, compose detected)
    await viaService('start');
    await viaService('stop');
    await byHand('up', '-d');
    await byHand('stop');
    const t = {
      svcStart: [] as number[],
      svcStop: [] as number[],
      handStart: [] as number[],
      handStop: [] as number[],
    };
    for (let i = 0; i < ROUNDS; i++) {
      t.svcStart.push(await timed(() => viaService('start')));
      t.handStart.push(await timed(() => byHand('up', '-d')));
      t.svcStop.push(await timed(() => viaService('stop')));
      t.handStop.push(await timed(() => byHand('stop')));
    }
    const startRatio = median(t.svcStart) / median(t.handStart);
    const stopRatio = median(t.svcStop) / median(t.handStop);
    console.log(`A. 3-service stack, ${ROUNDS} rounds (medians)`);
    console.log(
      `   start: service ${ms(median(t.svcStart))}, docker-compose up -d by hand ${ms(median(t.handStart))}: ${startRatio.toFixed(2)}× (target ≤ 1.2)`,
    );
    console.log(
      `   stop:  service ${ms(median(t.svcStop))}, docker-compose stop by hand ${ms(median(t.handStop))}: ${stopRatio.toFixed(2)}× (target ≤ 1.2)`,
    );

    // B: STACKS stacks in all, two running
    await viaService('start');
    await byHand('up', '-d');
    for (let i = 2; i < STACKS; i++) {
      const r = await s.call('POST', '/stacks', { name: `app${i}`, compose: compose(dockerd.busyboxImage) });
      if (r.status !== 201) throw new Error(r.text);
    }
    const lat: number[] = [];
    for (let i = 0; i < 10; i++) await s.call('GET', '/stacks');
    for (let i = 0; i < GETS; i++) {
      const t0 = performance.now();
      const r = await s.call('GET', '/stacks');
      lat.push(performance.now() - t0);
      if (r.status !== 200 || r.body.stacks.length !== STACKS) throw new Error(r.text.slice(0, 300));
    }
    console.log(`B. GET /stacks with ${STACKS} stacks (2 running, 6 containers), ${GETS} requests`);
    console.log(`   p50 ${ms(pct(lat, 50))}, p95 ${ms(pct(lat, 95))} (target p50 < 50 ms)`);
    await byHand('down');
    const ok = startRatio <= 1.2 && stopRatio <= 1.2 && pct(lat, 50) < 50;
    console.log(ok ? 'all targets met' : 'a target was missed');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await s?.close();
    await dockerd?.stop();
    if (previous === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = previous;
  }
}

await main();
