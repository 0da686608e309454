/**
 * The in-process port reader against the real compose tool's `config` output (02 §6.1): every
 * built-in template with its default `.env`, and a corpus of tricky files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvFile } from '../core/env-file.ts';
import { OutsideSubset } from '../core/interpolate.ts';
import { stackPorts } from '../core/stack-ports.ts';
import { parseTemplate } from '../core/template.ts';
import { createComposeTool, toolEnvironment } from './compose-tool.ts';
import { SHIPPED_CATALOG } from './catalog.ts';

const tool = createComposeTool(createCommandRunner(), process.env);
const environ = toolEnvironment(process.env);
let work: string;

beforeAll(async () => {
  await requirePrerequisites({ tools: ['docker-compose'] });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ports-corpus-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The spec's default `.env` for a template (02 §15). */
function defaultEnv(id: string): { compose: string; env: string } {
  const r = parseTemplate(fs.readFileSync(path.join(SHIPPED_CATALOG, id, 'compose.yaml')), {
    source: 'builtin',
    id,
  });
  if (!r.ok) throw new Error(`${id} invalid`);
  const values: Record<string, string> = {};
  for (const [name, spec] of r.template.inputs) {
    values[name] =
      spec.kind === 'secret'
        ? '0'.repeat(48)
        : spec.kind === 'timezone'
          ? 'UTC'
          : spec.kind === 'path' && !spec.default
            ? `/mnt/user/${spec.role}`
            : (spec.default ?? '');
  }
  return { compose: r.template.text, env: encodeEnvFile(values) };
}

async function viaTool(name: string, files: { compose: string; env: string }): Promise<number[] | 'error'> {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'docker-compose.yml'), files.compose);
  fs.writeFileSync(path.join(dir, '.env'), files.env);
  return tool.configPorts({ name, dir }).then(
    (p) => p,
    () => 'error' as const,
  );
}

const inProcess = async (files: {
  compose: string;
  env: string;
}): Promise<number[] | 'fallback' | 'error'> => {
  const { flavour } = await tool.detect();
  try {
    return stackPorts(files, flavour, environ);
  } catch (e) {
    return e instanceof OutsideSubset ? 'fallback' : 'error';
  }
};

describe('built-in templates: in-process ports equal the tool', { timeout: 180_000 }, () => {
  const ids = fs.readdirSync(SHIPPED_CATALOG).sort();
  it.each(ids)('%s', async (id) => {
    const files = defaultEnv(id);
    const mine = await inProcess(files);
    expect(mine).not.toBe('fallback');
    expect(mine).toEqual(await viaTool(id, files));
  });
  it('each passes the config check with its defaults', async () => {
    for (const id of ids) {
      const dir = path.join(work, `check-${id}`);
      fs.mkdirSync(dir, { recursive: true });
      const files = defaultEnv(id);
      fs.writeFileSync(path.join(dir, 'docker-compose.yml'), files.compose);
      fs.writeFileSync(path.join(dir, '.env'), files.env);
      await expect(tool.check({ name: id, dir }, { secrets: [], root: '' })).resolves.toBeUndefined();
    }
  });
});

const svc = (ports: string, extra = '') =>
  `services:\n  a:\n    image: busybox:1.37.0\n${extra}    ports:\n${ports}`;

const corpus: [string, { compose: string; env: string }, 'same' | 'fallback'][] = [
  [
    'ranges',
    { compose: svc('      - "9000-9002:9000-9002"\n      - "9100-9101:80-81/udp"\n'), env: '' },
    'same',
  ],
  [
    'bound addresses',
    {
      compose: svc('      - "127.0.0.1:8080:80"\n      - "[::1]:8081:80"\n      - "0.0.0.0::80"\n'),
      env: '',
    },
    'same',
  ],
  ['container only', { compose: svc('      - "80"\n      - 81\n'), env: '' }, 'same'],
  [
    'long syntax',
    {
      compose: svc(
        '      - target: 80\n        published: 7000\n        protocol: udp\n      - target: 81\n',
      ),
      env: '',
    },
    'same',
  ],
  [
    'defaults',
    { compose: svc('      - "${P:-6000}:1"\n      - "${Q-6001}:2"\n      - "${R:-6002}:3"\n'), env: 'R=\n' },
    'same',
  ],
  [
    'quoted .env values',
    {
      compose: svc('      - "${P}:1"\n', '    environment:\n      X: "${S}"\n'),
      env: 'P=6100\nS="a b \\" c"\n',
    },
    'same',
  ],
  ['comments and blank lines', { compose: svc('      - "$P:1"\n'), env: '# comment\n\nP=6200\n' }, 'same'],
  ['dollar escape', { compose: svc('      - "6300:1"\n', '    command: echo $$HOME\n'), env: '' }, 'same'],
  [
    'profiles count',
    {
      compose: `${svc('      - "6400:1"\n')}  b:\n    image: busybox:1.37.0\n    profiles: [debug]\n    ports: ["6401:1"]\n`,
      env: '',
    },
    'same',
  ],
  [
    'anchors and merges',
    {
      compose: `x-p: &p\n  ports: ["6500:1"]\nservices:\n  a:\n    image: busybox:1.37.0\n    <<: *p\n`,
      env: '',
    },
    'same',
  ],
  ['host network', { compose: svc('      - "6600:1"\n', '    network_mode: host\n'), env: '' }, 'same'],
  ['single-quoted .env', { compose: svc('      - "${P}:1"\n'), env: "P='6700'\n" }, 'fallback'],
  ['export in .env', { compose: svc('      - "${P}:1"\n'), env: 'export P=6800\n' }, 'fallback'],
  ['a YAML tag', { compose: svc('      - !!str "6900:1"\n'), env: '' }, 'fallback'],
];

describe('a corpus of tricky files', () => {
  it.each(corpus)('%s', async (name, files, expected) => {
    const mine = await inProcess(files);
    const theirs = await viaTool(name.replace(/\W+/g, '-'), files);
    expect(theirs).not.toBe('error');
    if (expected === 'fallback') expect(mine).toBe('fallback');
    else expect(mine).toEqual(theirs);
  });
  it('an unquoted base-60 port is left to v1 (which reads it as a number)', async () => {
    const files = { compose: svc('      - 2222:22\n'), env: '' };
    const { flavour } = await tool.detect();
    if (flavour === 'v1') {
      expect(await inProcess(files)).toBe('fallback');
      expect(await viaTool('sexagesimal', files)).toEqual([]);
    } else expect(await inProcess(files)).toEqual(await viaTool('sexagesimal', files));
  });
  it('an unset ${X?err} fails in-process as in the tool', async () => {
    const files = { compose: svc('      - "${P?set P}:1"\n'), env: '' };
    expect(await inProcess(files)).toBe('error');
    expect(await viaTool('required', files)).toBe('error');
  });
});
