/**
 * 02 §14 with a sandbox root, the real server context (real SQLite, sealing, files), a fake
 * Engine, and the new stack's compose check excluded:
 *  - Plan: core plan of jellyfin with defaults, facts in memory, p50 of N runs (target < 20 ms);
 *    reference: the real compose tool's `config` of the same template.
 *  - Scale: install p50 with 200 never-started stacks (a quarter with hand-edited .env) against
 *    install p50 with none (target ratio ≤ 2), and no compose process spawned to read them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createSqliteStackStore } from '../../../packages/api-server/src/features/apps/store.ts';
import { catalogFor } from '../../../packages/api-server/src/features/apps/deps.ts';
import { startSandbox } from '../../../packages/api-server/test-support/sandbox.ts';
import {
  buildPlan,
  createCommandRunnerFor,
  createComposeTool,
  type DockerEngine,
  encodeEnvFile,
  installValues,
  Installer,
  parseTemplate,
  SHIPPED_CATALOG,
  toolEnvironment,
} from './imports.ts';

const { values } = parseArgs({
  options: {
    installs: { type: 'string', default: '50' },
    stacks: { type: 'string', default: '200' },
    plans: { type: 'string', default: '1000' },
  },
});
const INSTALLS = Number(values.installs);
const STACKS = Number(values.stacks);
const PLANS = Number(values.plans);

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

// ── Plan ────────────────────────────────────────────────────────────────────────────────────────
const jellyfinText = fs.readFileSync(path.join(SHIPPED_CATALOG, 'jellyfin', 'compose.yaml'));
const parsed = parseTemplate(jellyfinText, { source: 'builtin', id: 'jellyfin' });
if (!parsed.ok) throw new Error('jellyfin is invalid');
const facts = {
  flavour: 'v2' as const,
  takenPorts: new Set([22, 80, 443, 8096]),
  shares: ['downloads', 'media'],
  renderDevices: ['/dev/dri/renderD128'],
  renderGroup: 44,
  hostZone: 'Europe/Vienna',
};
for (let i = 0; i < 50; i++) buildPlan(parsed.template, {}, facts, 'preview');
const planTimes: number[] = [];
const parsePlanTimes: number[] = [];
for (let i = 0; i < PLANS; i++) {
  let t0 = performance.now();
  buildPlan(parsed.template, {}, facts, 'preview');
  planTimes.push(performance.now() - t0);
  t0 = performance.now();
  const again = parseTemplate(jellyfinText, { source: 'builtin', id: 'jellyfin' });
  if (again.ok) buildPlan(again.template, {}, facts, 'preview');
  parsePlanTimes.push(performance.now() - t0);
}
const refDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ref-'));
const plan = buildPlan(parsed.template, {}, facts, 'install');
fs.writeFileSync(path.join(refDir, 'docker-compose.yml'), plan.plan.compose);
fs.writeFileSync(path.join(refDir, '.env'), encodeEnvFile(installValues(plan, () => new Uint8Array(24))));
const toolName = (() => {
  try {
    execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
})();
const refTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  execFileSync(toolName[0]!, [
    ...toolName.slice(1),
    '--project-directory',
    refDir,
    '-f',
    path.join(refDir, 'docker-compose.yml'),
    '--env-file',
    path.join(refDir, '.env'),
    'config',
    '--quiet',
  ]);
  refTimes.push(performance.now() - t0);
}
fs.rmSync(refDir, { recursive: true, force: true });
console.log(`\nPlan of jellyfin with defaults, host facts in memory (${PLANS} runs)`);
console.log(`  core plan p50                    ${fmt(p50(planTimes))}   (target < 20 ms)`);
console.log(`  parse + plan p50                 ${fmt(p50(parsePlanTimes))}`);
console.log(`  reference: ${toolName.join(' ')} config p50 (5 runs)  ${fmt(p50(refTimes))}`);
console.log(`  ratio core plan / tool config    ${(p50(planTimes) / p50(refTimes)).toFixed(4)}`);

// ── Scale ───────────────────────────────────────────────────────────────────────────────────────
const hostRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-host-'));
fs.symlinkSync('/proc', path.join(hostRoot, 'proc'));
fs.mkdirSync(path.join(hostRoot, 'etc'));
fs.writeFileSync(path.join(hostRoot, 'etc/timezone'), 'Europe/Vienna\n');
const s = await startSandbox({ hostRoot, admin: false });
try {
  const ctx = s.server.ctx;
  const realTool = createComposeTool(createCommandRunnerFor(), process.env);
  let spawned = 0;
  const engine: DockerEngine = {
    containers: async () => [],
    portBindings: async () => null,
    networks: async () => ['bridge', 'host', 'none'],
  };
  const installer = new Installer({
    paths: ctx.paths,
    clock: ctx.clock,
    catalog: catalogFor(ctx),
    stacks: createSqliteStackStore(ctx),
    locks: ctx.locks,
    compose: {
      detect: () => realTool.detect(),
      check: async () => undefined, // the new stack's compose check is excluded (02 §14)
      configPorts: async (stack) => {
        spawned++;
        return realTool.configPorts(stack);
      },
    },
    engine,
    environ: toolEnvironment(process.env),
    shares: async () => ['downloads', 'media'],
  });
  const store = createSqliteStackStore(ctx);
  const removeStack = async (name: string) => {
    await store.remove(name);
    fs.rmSync(path.join(ctx.paths.stacksDir, name), { recursive: true, force: true });
  };
  const timedInstalls = async (label: string) => {
    const times: number[] = [];
    for (let i = 0; i < INSTALLS; i++) {
      const name = `${label}-${i}`;
      const t0 = performance.now();
      await installer.install('jellyfin', { name });
      times.push(performance.now() - t0);
      await removeStack(name);
    }
    return times;
  };
  await timedInstalls('warm');
  const none = await timedInstalls('none');
  const ids = [
    'jellyfin',
    'immich',
    'wireguard',
    'vaultwarden',
    'syncthing',
    'pihole',
    'paperless-ngx',
    'trilium',
    'qbittorrent',
    'home-assistant',
  ];
  for (let i = 0; i < STACKS; i++) {
    const id = ids[i % ids.length]!;
    const name = `existing-${i}`;
    await installer.install(id, {
      name,
      values: id === 'qbittorrent' ? { DOWNLOADS: '/mnt/user/downloads' } : {},
    });
    if (i % 4 === 0) {
      const envFile = path.join(ctx.paths.stacksDir, name, '.env');
      const text = fs.readFileSync(envFile, 'utf8');
      fs.writeFileSync(envFile, `# edited by hand\n${text.replace(/^TZ=.*$/m, 'TZ="America/New_York"')}\n`);
    }
  }
  const spawnedBefore = spawned;
  const many = await timedInstalls('many');
  console.log(`\nInstall of jellyfin, compose check excluded (${INSTALLS} installs each)`);
  console.log(`  p50 with no stacks               ${fmt(p50(none))}`);
  console.log(`  p50 with ${STACKS} stacks             ${fmt(p50(many))}`);
  console.log(`  ratio (target ≤ 2)               ${(p50(many) / p50(none)).toFixed(2)}`);
  console.log(
    `  compose processes spawned to read existing stacks: ${spawned - spawnedBefore + spawnedBefore}`,
  );
  if (p50(planTimes) >= 20 || p50(many) / p50(none) > 2 || spawned > 0) process.exitCode = 1;
} finally {
  await s.close();
  fs.rmSync(hostRoot, { recursive: true, force: true });
}
