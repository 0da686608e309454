#!/usr/bin/env node
// CI: the README's start command and Quick start, run as a new user would.
//
// Reads the fenced ```sh blocks of README.md's "Quick start" (so a README that drifts from the code
// fails CI), changes only the port (a free one) and the sandbox path (a temporary directory), and
// runs them with bash in a pseudo-terminal (`script`), typing the password when the CLI asks:
//   1. the CLI way (start, first admin and token over the socket, use the token, stop), in a fresh
//      clone of this repository with an empty runtime directory and pnpm store (cold);
//   2. the curl way, on the same clone again (warm: the start command must be idempotent and quick).
// After each run: the token matches the API's pattern, the users list answered, alice was created,
// the port is closed, the socket is gone and no process of the sandbox is left.
//
// Usage: node .ci/readme-quickstart.mjs [--clone-from DIR] [--work DIR]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const PASSWORD = 'correct horse';
const READY_TIMEOUT_MS = 20 * 60_000;

function fail(message) {
  console.error(`readme-quickstart: FAILED: ${message}`);
  process.exit(1);
}

/** The fenced sh blocks of the README's "Quick start" section, in order. */
export function quickStartBlocks(readme) {
  const start = readme.indexOf('\n## Quick start');
  if (start < 0) fail('README.md has no "## Quick start" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function portOpen(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** Processes whose command line or working directory mentions the sandbox. */
function processesOf(sandbox) {
  const found = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      let cwd = '';
      try {
        cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      } catch {}
      if (cmd.includes(sandbox) || cwd.startsWith(sandbox)) found.push(`${pid} ${cmd.trim()}`);
    } catch {}
  }
  return found;
}

/** The script a user would type: the blocks, with the port and sandbox substituted. */
function userScript(blocks, { port, sandbox }) {
  const sub = (text) =>
    text.replaceAll('127.0.0.1:8008', `127.0.0.1:${port}`).replaceAll('.sandbox/', `${sandbox}/`);
  const lines = [];
  // What a user does between the lines: wait until the service answers before going on.
  lines.push(`__ci_wait_ready() {
  local deadline=$((SECONDS + ${READY_TIMEOUT_MS / 1000}))
  until curl -sf -o /dev/null http://127.0.0.1:${port}/api/v1/setup/status; do
    if ! kill -0 %1 2>/dev/null; then echo "__CI: the start command exited before answering" >&2; exit 1; fi
    if [ $SECONDS -ge $deadline ]; then echo "__CI: no answer on port ${port}" >&2; exit 1; fi
    sleep 0.5
  done
  echo "__CI_READY after $SECONDS s"
}`);
  for (const block of blocks) {
    for (const line of sub(block).split('\n')) {
      lines.push(line);
      if (/tools\/start\.sh\s*&/.test(line)) lines.push('__ci_wait_ready');
    }
  }
  lines.push('echo "__CI_TOKEN=$TOKEN"', 'wait %1 2>/dev/null || true', 'echo "__CI_DONE after $SECONDS s"');
  return `${lines.join('\n')}\n`;
}

/** Runs a script under a pseudo-terminal, answering every password prompt. */
function runInPty(scriptFile, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', `bash -eo pipefail ${scriptFile}`, '/dev/null'], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    let answered = 0;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      out += chunk.toString('utf8');
      // The CLI's prompts are "Password: " and "Repeat password: " (no newline until answered).
      const total = (out.match(/password: /gi) ?? []).length;
      while (answered < total) {
        child.stdin.write(`${PASSWORD}\n`);
        answered += 1;
      }
    });
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, out: out.replaceAll('\r', '') });
    });
  });
}

async function runVariant(name, blocks, clone, runtimeEnv) {
  const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), `appliance-qs-${name}-`));
  const port = await freePort();
  const scriptFile = path.join(sandbox, '..', `${path.basename(sandbox)}.sh`);
  fs.writeFileSync(scriptFile, userScript(blocks, { port, sandbox }));
  const env = {
    ...process.env,
    ...runtimeEnv,
    APPLIANCE_SANDBOX: sandbox,
    APPLIANCE_LISTEN: `127.0.0.1:${port}`,
  };
  const started = Date.now();
  console.log(`\n=== README Quick start, ${name} way: port ${port}, sandbox ${sandbox}`);
  const { code, out } = await runInPty(scriptFile, { cwd: clone, env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const problems = [];
  if (code !== 0) problems.push(`the script exited with ${code}`);
  if (out.includes(PASSWORD) && name === 'cli') problems.push('the password typed at the prompt was echoed');
  const token = /__CI_TOKEN=(\S*)/.exec(out)?.[1] ?? '';
  if (!/^apat_[0-9a-f]{64}$/.test(token)) problems.push(`TOKEN is "${token}", not an API token`);
  // curl prints its body without a newline: split a body from whatever follows it on the line.
  const jsonLines = out
    .replace(/\}(?=\{|__CI)/g, '}\n')
    .split('\n')
    .filter((l) => l.trim().startsWith('{') || l.trim().startsWith('['))
    .flatMap((l) => {
      try {
        return [JSON.parse(l.trim())];
      } catch {
        return [];
      }
    });
  const list = jsonLines.find((j) => Array.isArray(j.users) || Array.isArray(j.items) || Array.isArray(j));
  const listed = list ? (Array.isArray(list) ? list : (list.users ?? list.items)) : [];
  if (!listed.some((u) => u.username === 'admin')) problems.push('the users list did not show admin');
  if (!jsonLines.some((j) => j.username === 'alice' && j.role === 'viewer'))
    problems.push('alice was not created');
  if (jsonLines.some((j) => typeof j.code === 'string')) problems.push('an API call answered an error');
  if (await portOpen(port)) problems.push(`port ${port} still accepts connections after "kill %1"`);
  if (fs.existsSync(path.join(sandbox, 'run/appliance/appliance.sock')))
    problems.push('the socket file is left');
  const left = processesOf(sandbox);
  if (left.length) problems.push(`processes left running:\n  ${left.join('\n  ')}`);
  for (const pid of left) {
    try {
      process.kill(Number(pid.split(' ')[0]), 'SIGKILL');
    } catch {}
  }
  fs.rmSync(sandbox, { recursive: true, force: true });
  fs.rmSync(scriptFile, { force: true });
  if (problems.length) fail(`${name} way: ${problems.join('; ')}`);
  const ready = /__CI_READY after (\d+) s/.exec(out)?.[1];
  console.log(`=== ${name} way: OK in ${seconds} s (service answered after ${ready} s)`);
  return { name, seconds, ready };
}

const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
const blocks = quickStartBlocks(readme);
if (blocks.length !== 4)
  fail(`expected 4 sh blocks in the Quick start (start, CLI, curl, use), found ${blocks.length}`);
const [startBlock, cliBlock, curlBlock, useBlock] = blocks;
if (!/bash tools\/start\.sh\s*&/.test(startBlock))
  fail('the first Quick start block does not run tools/start.sh');

const work = opt('--work') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-readme-'));
const clone = path.join(work, 'clone');
execFileSync('git', ['clone', '-q', opt('--clone-from') ?? repo, clone], { stdio: 'inherit' });
// Cold: nothing installed for this clone (its own runtime directory, pnpm store and npm cache).
const runtimeEnv = {
  APPLIANCE_RUNTIME_DIR: path.join(work, 'runtime'),
  npm_config_store_dir: path.join(work, 'pnpm-store'),
  npm_config_cache: path.join(work, 'npm-cache'),
};
try {
  const cold = await runVariant('cli', [startBlock, cliBlock, useBlock], clone, runtimeEnv);
  const warm = await runVariant('curl', [startBlock, curlBlock, useBlock], clone, runtimeEnv);
  console.log(
    `readme-quickstart: OK: start command cold ${cold.ready} s to answer (${cold.seconds} s in all), warm ${warm.ready} s (${warm.seconds} s)`,
  );
} finally {
  if (!opt('--work')) fs.rmSync(work, { recursive: true, force: true });
}
