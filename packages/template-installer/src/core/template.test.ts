import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTemplate } from './template.ts';

const catalogDir = path.resolve(import.meta.dirname, '../../catalog');
const builtinIds = fs.readdirSync(catalogDir).sort();

const base = (extra = '', inputs = '') => `services:
  app:
    image: busybox:1.37.0
${extra}x-service:
  schema: 1
  id: demo
  revision: 1
  title: Demo
  categories: [testing]
  docs: https://example.org/
${inputs ? `  inputs:\n${inputs}` : ''}`;

const problemsOf = (text: string) => {
  const r = parseTemplate(text, { source: 'builtin', id: 'demo' });
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
};

describe('the built-in catalog', () => {
  it('ships at least ten templates', () => {
    expect(builtinIds.length).toBeGreaterThanOrEqual(10);
  });
  it.each(builtinIds)('%s is a valid template', (id) => {
    const r = parseTemplate(fs.readFileSync(path.join(catalogDir, id, 'compose.yaml')), {
      source: 'builtin',
      id,
    });
    expect(r.ok ? [] : r.problems).toEqual([]);
  });
  it.each(builtinIds)('%s pins every image to a version', (id) => {
    const text = fs.readFileSync(path.join(catalogDir, id, 'compose.yaml'), 'utf8');
    for (const m of text.matchAll(/image: (\S+)/g)) {
      expect(m[1]).toMatch(/:[^:]+$/);
      expect(m[1]).not.toMatch(/:latest$/);
    }
  });
});

describe('template validation', () => {
  it('accepts a minimal template, with leading --- and trailing ...', () => {
    expect(problemsOf(base())).toEqual([]);
    expect(problemsOf(`---\n${base()}...\n`)).toEqual([]);
  });
  it('refuses a second document, even a comment', () => {
    expect(problemsOf(`${base()}---\n{}\n`)[0]).toMatch(/more than one/);
    expect(problemsOf(`${base()}---\n# c\n`)[0]).toMatch(/more than one/);
  });
  it('refuses tags, allows anchors and merges', () => {
    expect(problemsOf(base('    command: !!str x\n'))[0]).toMatch(/tags/);
    const merged = `x-common: &c\n  restart: unless-stopped\n${base('    <<: *c\n')}`;
    expect(problemsOf(merged)).toEqual([]);
  });
  it('refuses the wrong id, unknown keys and refused service keys', () => {
    expect(parseTemplate(base(), { source: 'builtin', id: 'other' }).ok).toBe(false);
    expect(problemsOf(base('    build: .\n    container_name: x\n'))).toEqual([
      'services.app.build: service key not allowed',
      'services.app.container_name: service key not allowed',
    ]);
    expect(problemsOf(`version: "3"\n${base()}`)).toEqual([
      'version: top-level key not allowed (only services, volumes, networks and x-*)',
    ]);
    expect(problemsOf(base().replace('  schema: 1\n', '  schema: 1\n  colour: red\n'))).toEqual([
      'x-service.colour: unknown key',
    ]);
  });
  it('checks references: declared, used, secret only in environment', () => {
    expect(problemsOf(base('    command: echo $NOPE\n'))).toEqual([
      'services.app.command: $NOPE is not a declared input',
    ]);
    expect(problemsOf(base('', '    UNUSED: {kind: string, default: x}\n'))).toEqual([
      'x-service.inputs.UNUSED: the input is never used in the Compose part or in webui',
    ]);
    expect(problemsOf(base('    command: echo ${PW}\n', '    PW: {kind: secret}\n'))).toEqual([
      'services.app.command: the secret PW may only be used in services.*.environment values',
    ]);
    expect(problemsOf(base('    environment: {A: "${PW}"}\n', '    PW: {kind: secret}\n'))).toEqual([]);
    expect(problemsOf(base('    env_file: .env\n', '    ANY: {kind: string, default: x}\n'))).toEqual([]);
    expect(problemsOf(base('    command: echo ${A:+x}\n'))[0]).toMatch(/not a supported variable reference/);
  });
  it('checks bind-mount sources and named volumes', () => {
    expect(problemsOf(base('    volumes: ["./data:/data"]\n'))[0]).toMatch(/bind-mount source/);
    expect(
      problemsOf(base('    volumes: ["${S}/x:/data"]\n', '    S: {kind: string, default: /x}\n'))[0],
    ).toMatch(/bind-mount source/);
    expect(problemsOf(base('    volumes: ["vol:/data"]\n'))[0]).toMatch(/not declared/);
    expect(problemsOf(`volumes: {vol: {}}\n${base('    volumes: ["vol:/data", "/srv:/srv"]\n')}`)).toEqual(
      [],
    );
  });
  it('checks input specs and reserved names', () => {
    expect(
      problemsOf(base('    command: echo $HOME\n', '    HOME: {kind: string, default: x}\n'))[0],
    ).toMatch(/reserved/);
    expect(problemsOf(base('    command: $P\n', '    P: {kind: port, default: 70000}\n'))[0]).toMatch(
      /port default/,
    );
    expect(
      problemsOf(
        base('    volumes: ["${P}:/p"]\n', '    P: {kind: path, role: media, default: /srv/media}\n'),
      )[0],
    ).toMatch(/under \/mnt\/user\//);
    expect(
      problemsOf(base('', '    G: {kind: device, role: gpu}\n    H: {kind: device, role: gpu}\n')),
    ).toContain('x-service.inputs.H.kind: a template has at most one device input');
    expect(
      problemsOf(base('    environment: {A: "$S"}\n', '    S: {kind: secret, default: x}\n'))[0],
    ).toMatch(/no default/);
  });
  it('checks network_mode, pid, ipc and privileged', () => {
    expect(problemsOf(base('    network_mode: container:x\n'))[0]).toMatch(/network_mode/);
    expect(problemsOf(base('    pid: service:app\n    ipc: shareable\n'))).toEqual([]);
    expect(
      problemsOf(base('    privileged: "${PRIV}"\n', '    PRIV: {kind: string, default: "false"}\n')),
    ).toEqual([]);
    expect(problemsOf(base('    privileged: "yes please"\n'))[0]).toMatch(/privileged/);
  });
  it('refuses an oversized or non-UTF-8 file', () => {
    expect(problemsOf(`${base()}# ${'x'.repeat(256 * 1024)}\n`)[0]).toMatch(/at most 262144/);
    const r = parseTemplate(Buffer.from([0x73, 0xff, 0x0a]), { source: 'b', id: 'demo' });
    expect(r.ok ? [] : r.problems[0]!.message).toMatch(/UTF-8/);
  });
});
