import { describe, expect, it } from 'vitest';
import {
  choosePassphrase,
  type OpenOutcome,
  parseIdentity,
  parseSecrets,
  resolveSecrets,
  type SecretsPayload,
} from './secrets.ts';

const opened = <T>(value: T): OpenOutcome<T> => ({ kind: 'opened', value });
const wrong = { kind: 'wrong' } as const;
const unreadable = { kind: 'unreadable', reason: 'x' } as const;
const payload: SecretsPayload = { formatVersion: 1, sealed: [], stacks: [] };
const key = Buffer.alloc(32, 1);
const stacks = ['db', 'web'];

describe('resolveSecrets (01 §4.8)', () => {
  it('no age files: none/none, the sent passphrase is not checked, every archived stack listed', () => {
    const r = resolveSecrets({
      hasSecrets: false,
      hasIdentity: false,
      choice: choosePassphrase('anything', null),
      archiveStacks: stacks,
    });
    expect(r.report).toEqual({ status: 'none', identity: 'none', stacks });
    expect(r.error).toBeNull();
  });

  it('no passphrase at all: each present file reports no_passphrase', () => {
    const r = resolveSecrets({
      hasSecrets: true,
      hasIdentity: false,
      choice: choosePassphrase(undefined, null),
      archiveStacks: stacks,
    });
    expect(r.report).toEqual({ status: 'no_passphrase', identity: 'none', stacks });
  });

  it('opened: status opened and stacks []', () => {
    const r = resolveSecrets({
      hasSecrets: true,
      hasIdentity: true,
      choice: choosePassphrase(undefined, 'pw'),
      secrets: opened(payload),
      identity: opened(key),
      archiveStacks: stacks,
    });
    expect(r.report).toEqual({ status: 'opened', identity: 'opened', stacks: [] });
    expect(r.machineKey).toEqual(key);
  });

  it('a wrong configured passphrase: passphrase_incorrect, no error', () => {
    const r = resolveSecrets({
      hasSecrets: true,
      hasIdentity: true,
      choice: choosePassphrase(undefined, 'pw'),
      secrets: wrong,
      identity: wrong,
      archiveStacks: ['web'],
    });
    expect(r.report).toEqual({
      status: 'passphrase_incorrect',
      identity: 'passphrase_incorrect',
      stacks: ['web'],
    });
    expect(r.error).toBeNull();
  });

  it('a wrong sent passphrase on secrets.age: 400 backup_passphrase_incorrect', () => {
    const r = resolveSecrets({
      hasSecrets: true,
      hasIdentity: true,
      choice: choosePassphrase('bad', 'pw'),
      secrets: wrong,
      identity: wrong,
      archiveStacks: [],
    });
    expect(r.error?.status).toBe(400);
    expect(r.error?.code).toBe('backup_passphrase_incorrect');
    expect(r.error?.message).toBe("The passphrase does not open the archive's secrets.age or identity.age.");
  });

  it('a sent passphrase that opens secrets.age but not identity.age: identity passphrase_incorrect, no error', () => {
    const r = resolveSecrets({
      hasSecrets: true,
      hasIdentity: true,
      choice: choosePassphrase('pw', null),
      secrets: opened(payload),
      identity: wrong,
      archiveStacks: [],
    });
    expect(r.report).toEqual({ status: 'opened', identity: 'passphrase_incorrect', stacks: [] });
    expect(r.error).toBeNull();
  });

  it('identity.age without secrets.age and a wrong sent passphrase: refused', () => {
    const r = resolveSecrets({
      hasSecrets: false,
      hasIdentity: true,
      choice: choosePassphrase('bad', null),
      identity: wrong,
      archiveStacks: [],
    });
    expect(r.error?.code).toBe('backup_passphrase_incorrect');
  });

  it('an unreadable file is invalid_archive, before a refusal', () => {
    const r = resolveSecrets({
      hasSecrets: true,
      hasIdentity: true,
      choice: choosePassphrase('bad', null),
      secrets: wrong,
      identity: unreadable,
      archiveStacks: [],
    });
    expect(r.error?.code).toBe('invalid_archive');
    expect(r.error?.details?.['entry']).toBe('identity.age');
  });
});

describe('plaintext formats', () => {
  it('validates secrets.age JSON', () => {
    const ok = JSON.stringify({
      formatVersion: 1,
      sealed: [{ table: 'notify_channels', column: 'secret', key: ['c-1'], value: 'YQ==' }],
      stacks: [{ name: 'web', env: 'QQ==' }],
    });
    expect(parseSecrets(Buffer.from(ok))?.stacks[0]?.name).toBe('web');
    expect(parseSecrets(Buffer.from('{"formatVersion":2,"sealed":[],"stacks":[]}'))).toBeNull();
    expect(
      parseSecrets(Buffer.from('{"formatVersion":1,"sealed":[],"stacks":[{"name":"../x","env":""}]}')),
    ).toBeNull();
    expect(parseSecrets(Buffer.from('not json'))).toBeNull();
  });
  it('validates identity.age: 64 lowercase hex and a newline', () => {
    expect(parseIdentity(Buffer.from(`${'ab'.repeat(32)}\n`))?.length).toBe(32);
    expect(parseIdentity(Buffer.from(`${'AB'.repeat(32)}\n`))).toBeNull();
    expect(parseIdentity(Buffer.from('ab'.repeat(32)))).toBeNull();
  });
});
