/**
 * notifications, templates and config commands against a real server (templates with a private
 * dockerd): a success, a refusal with the API's message (exit 1) and a usage error (exit 2) each;
 * --json equal to the API's answer.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { readArchive } from '@appliance/archive-preview';
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance, onTerminal } from './support.ts';

let s: Sandbox;
let dockerd: PrivateDockerd;
let receiver: http.Server;
let receiverUrl = '';
let failing = false;
const received: string[] = [];
const previousDockerHost = process.env['DOCKER_HOST'];
const cli = (...args: string[]) => appliance([...args, '--socket', s.socket]);
const api = async (p: string) => (await s.call('GET', p, undefined, { via: 'unix' })).body;

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker'] });
  dockerd = await startPrivateDockerd();
  process.env['DOCKER_HOST'] = dockerd.host;
  s = await startSandbox({ config: { logLevel: 'silent' } });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      received.push(body);
      res.writeHead(failing ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 180_000);

afterAll(async () => {
  receiver?.close();
  await s?.close();
  await dockerd?.stop();
  if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previousDockerHost;
});

describe('notifications channels', () => {
  it('add: a webhook (0), a taken name (1), a missing --endpoint (2)', async () => {
    const r = await cli(
      'notifications',
      'channels',
      'add',
      'ops',
      '--type',
      'webhook',
      '--endpoint',
      receiverUrl,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^channel: +ops\ntype: +webhook\nenabled: +yes\nsecret: +none\n$/);
    const taken = await cli(
      'notifications',
      'channels',
      'add',
      'OPS',
      '--type',
      'webhook',
      '--endpoint',
      receiverUrl,
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^notification_channel_exists: /);
    const noUrl = await cli('notifications', 'channels', 'add', 'x', '--type', 'webhook');
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('a webhook channel needs --endpoint');
    expect((await cli('notifications', 'channels', 'add', 'x', '--type', 'pigeon')).code).toBe(2);
  });

  it('list: a table and --json', async () => {
    const r = await cli('notifications', 'channels', 'list');
    expect(r.stdout).toMatch(/^NAME\s+TYPE\s+ENABLED\s+SECRET\s+CREATED\nops\s+webhook\s+yes\s+none\s+/);
    expect(JSON.parse((await cli('notifications', 'channels', 'list', '--json')).stdout)).toEqual(
      await api('/notifications/channels'),
    );
  });

  it('test: delivered (0), failed delivery (1), unknown channel (1), missing name (2)', async () => {
    const ok = await cli('notifications', 'channels', 'test', 'ops');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('Test message sent to ops.\n');
    expect(JSON.parse(received.at(-1)!).eventType).toBe('test');
    failing = true;
    const bad = await cli('notifications', 'channels', 'test', 'ops');
    failing = false;
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^delivery_failed: The test message to ops failed: .*500/);
    const unknown = await cli('notifications', 'channels', 'test', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^notification_channel_not_found: /);
    expect((await cli('notifications', 'channels', 'test')).code).toBe(2);
  });
});

describe('notifications routing', () => {
  it('list and show; --json equal to the API', async () => {
    const r = await cli('notifications', 'routing', 'list');
    expect(r.stdout).toMatch(/^EVENT\s+SEVERITY\s+CHANNELS\n/);
    expect(r.stdout).toMatch(/\ndisk_offline\s+critical\s+-\n/);
    expect(JSON.parse((await cli('notifications', 'routing', 'list', '--json')).stdout)).toEqual(
      await api('/notifications/routing'),
    );
    const show = await cli('notifications', 'routing', 'show', 'disk_offline');
    expect(show.stdout).toMatch(
      /^event: +disk_offline\ndescription: +.+\nseverity: +critical \(default\)\nchannels: +-\n$/,
    );
    const unknown = await cli('notifications', 'routing', 'show', 'disk_on_fire');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^[a-z_]+: /);
  });

  it('set by channel name, then reset; refusal (1) and usage errors (2)', async () => {
    const set = await cli(
      'notifications',
      'routing',
      'set',
      'disk_offline',
      '--severity',
      'error',
      '--channel',
      'ops',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/\ndisk_offline\s+error \*\s+ops\n$/);
    const entry = await api('/notifications/routing/disk_offline');
    expect(entry).toMatchObject({ severity: 'error', isDefaultSeverity: false });
    expect(entry.channelIds).toHaveLength(1);
    const json = await cli('notifications', 'routing', 'reset', 'disk_offline', '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      eventType: 'disk_offline',
      severity: 'critical',
      channelIds: [],
      isDefaultSeverity: true,
    });
    expect(await api('/notifications/routing/disk_offline')).toEqual(JSON.parse(json.stdout));
    const noChannel = await cli('notifications', 'routing', 'set', 'disk_offline', '--channel', 'pager');
    expect(noChannel.code).toBe(1);
    expect(noChannel.stderr).toMatch(/^notification_channel_not_found: /);
    expect((await cli('notifications', 'routing', 'set', 'disk_offline', '--severity', 'loud')).code).toBe(2);
    expect((await cli('notifications', 'routing', 'set', 'disk_offline')).code).toBe(2);
    expect((await cli('notifications', 'routing', 'reset', 'disk_on_fire')).code).toBe(1);
  });
});

describe('templates', () => {
  it('list: the catalog; --json is GET /catalog', async () => {
    const r = await cli('templates', 'list');
    expect(r.stdout).toMatch(/^ID\s+TITLE\s+SOURCE\s+CATEGORIES\s+INSTALLED AS\n/);
    expect(r.stdout).toMatch(/\njellyfin\s+Jellyfin\s+builtin\s+media\s+-\n/);
    expect(JSON.parse((await cli('templates', 'list', '--json')).stdout)).toEqual(await api('/catalog'));
  });

  it('preview with --input; an unknown input is refused (1); a bad --input (2)', async () => {
    const r = await cli('templates', 'preview', 'jellyfin', '--name', 'films', '--input', 'TZ=Europe/Vienna');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^template: +builtin\/jellyfin \(revision \d+\)\n/);
    expect(r.stdout).toMatch(/\nstack: +films\n/);
    expect(r.stdout).toMatch(/\nTZ\s+Europe\/Vienna\s/);
    const bad = await cli('templates', 'preview', 'jellyfin', '--input', 'COLOUR=red');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^invalid_template_input: The template jellyfin has no input COLOUR/);
    expect((await cli('templates', 'preview', 'jellyfin', '--input', 'TZ')).code).toBe(2);
    expect(fs.existsSync(path.join(s.root, 'var/lib/appliance/stacks/films'))).toBe(false);
  });

  it('install: the stack is written (0); the same name again (1); no template given (2)', async () => {
    const r = await cli('templates', 'install', 'jellyfin', '--name', 'films', '--json');
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(res.stack).toMatchObject({ name: 'films', directory: '/var/lib/appliance/stacks/films' });
    expect(fs.existsSync(path.join(s.root, 'var/lib/appliance/stacks/films/docker-compose.yml'))).toBe(true);
    expect((await api('/stacks')).stacks.map((x: { name: string }) => x.name)).toContain('films');
    const again = await cli('templates', 'install', 'jellyfin', '--name', 'films');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^[a-z_]+: .*films/);
    expect((await cli('templates', 'install')).code).toBe(2);
  });

  it('install shows one progress line per step from GET /events, while it runs, then the stack', async () => {
    const seen: Array<{ at: number; line: string }> = [];
    let answered = 0;
    const r = await appliance(['templates', 'install', 'trilium', '--name', 'notes', '--socket', s.socket], {
      onStderr: (t) => {
        for (const line of t.split('\n').filter(Boolean)) seen.push({ at: Date.now(), line });
      },
    }).then((x) => {
      answered = Date.now();
      return x;
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = seen.filter((l) => l.line.startsWith('template.install notes: '));
    expect(lines.map((l) => l.line.replace(/, \d+s/, ', Ns'))).toEqual([
      'template.install notes: step 1/4: recording the stack, Ns',
      'template.install notes: step 2/4: writing .env, docker-compose.yml and meta.json, Ns',
      'template.install notes: step 3/4: checking the files with the compose tool, Ns',
      'template.install notes: step 4/4: marking the stack installed, Ns',
      'template.install notes: step 4/4: marking the stack installed, Ns, done',
    ]);
    // the lines arrived while the install ran, before the process printed its answer and ended
    expect(lines[0]!.at).toBeLessThan(answered);
    expect(r.stdout).toContain('Installed the stack notes in /var/lib/appliance/stacks/notes (not started).');
    // a refused install shows no progress line
    const again = await cli('templates', 'install', 'trilium', '--name', 'notes');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^stack_exists: /);
    expect(again.stderr).not.toContain('template.install');
  });

  it('install on a terminal draws a bar that ends at 100% with the last step and the time', async () => {
    const r = await onTerminal(
      ['templates', 'install', 'trilium', '--name', 'onscreen', '--socket', s.socket],
      [],
    );
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toMatch(/░*\s*25% \| step 1\/4: recording the stack \| \d+s/);
    expect(r.screen).toMatch(/█{30} 100% \| step 4\/4: marking the stack installed \| \d+s/);
    expect(r.screen).toContain('Installed the stack onscreen');
  });

  it('install: Ctrl-C stops watching, not the install, and says how to follow it again', async () => {
    let interrupted = false;
    const r = await appliance(['templates', 'install', 'trilium', '--name', 'later', '--socket', s.socket], {
      onStderr: (text, child) => {
        if (!interrupted && text.includes('template.install later: step 1/4')) {
          interrupted = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('Stopped watching; the install of the stack later goes on in the service.');
    expect(r.stderr).toContain('appliance events --progress');
    expect(r.stderr).not.toContain(', done');
    expect(r.stdout).toBe('');
    // the install goes on and finishes in the service
    await expect
      .poll(async () => (await api('/stacks')).stacks.map((x: { name: string }) => x.name), {
        timeout: 30_000,
      })
      .toContain('later');
    expect(fs.existsSync(path.join(s.root, 'var/lib/appliance/stacks/later/docker-compose.yml'))).toBe(true);
  });
});

describe('config', () => {
  it('export writes the archive atomically (0600); an existing file needs --force (2); preview reads it', async () => {
    const dir = fs.mkdtempSync(path.join(s.root, 'exports-'));
    const out = path.join(dir, 'backup.tar.zst');
    const r = await cli('config', 'export', '--output', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Wrote .*backup\.tar\.zst \([\d.]+ KiB\)\.\n$/);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['backup.tar.zst']); // no temporary file left beside it
    const unpacked = fs.mkdtempSync(path.join(s.root, 'verify-'));
    const contents = await readArchive(fs.createReadStream(out), { tempDir: unpacked });
    expect(contents.files.has('state.db')).toBe(true);
    fs.rmSync(unpacked, { recursive: true, force: true });
    const written = fs.readFileSync(out);
    const exists = await cli('config', 'export', '--output', out);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain('--force');
    expect(fs.readFileSync(out).equals(written)).toBe(true);
    const old = path.join(dir, 'existing.tar.zst');
    fs.writeFileSync(old, 'old');
    expect((await cli('config', 'export', '--output', old)).code).toBe(2);
    expect(fs.readFileSync(old, 'utf8')).toBe('old');
    const forced = await cli('config', 'export', '--output', old, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.readFileSync(old).subarray(0, 4).toString('hex')).toBe('28b52ffd'); // zstd magic
    expect(fs.statSync(old).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).sort()).toEqual(['backup.tar.zst', 'existing.tar.zst']);
    const preview = await cli('config', 'preview', out);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/^archive of: +\S+, (now|\d+ seconds? ago) \(app /);
    expect(preview.stdout).toMatch(/\nschema: +same as this box\n/);
    const json = await cli('config', 'preview', out, '--json');
    expect(JSON.parse(json.stdout).archive.schemaVersion).toBe(JSON.parse(json.stdout).liveSchemaVersion);
  });

  it('export on a terminal shows the bytes received and the time taken', async () => {
    const out = path.join(s.root, 'tty.tar.zst');
    const r = await onTerminal(['config', 'export', '--output', out, '--socket', s.socket], []);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toMatch(/exporting: [\d.]+ KiB \| \d+s/);
    expect(r.screen).toContain(`Wrote ${out}`);
    expect(fs.statSync(out).size).toBeGreaterThan(0);
  });

  it('export to standard output; preview of a file that is not an archive (1); of no file (2)', async () => {
    const r = await appliance(['config', 'export', '--output', '-', '--socket', s.socket]);
    expect(r.code).toBe(0);
    expect(r.stdoutBytes.subarray(0, 4).toString('hex')).toBe('28b52ffd'); // zstd magic
    const junk = path.join(s.root, 'junk.tar.zst');
    fs.writeFileSync(junk, 'not an archive');
    const bad = await cli('config', 'preview', junk);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^[a-z_]+: .+/);
    expect((await cli('config', 'preview', path.join(s.root, 'missing.tar.zst'))).code).toBe(2);
  });
});
