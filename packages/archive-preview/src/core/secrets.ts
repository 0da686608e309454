/**
 * Secrets (01 §1.5, §4.8): the plaintext formats of `secrets.age` and `identity.age`, and the
 * resolution rules that turn the outcome of opening them into `secrets` or a held error. Pure:
 * decrypting is ../node/age-files.ts.
 */
import * as v from 'valibot';
import type { AppError } from '@appliance/common';
import { compareCodePoints } from './codepoint.ts';
import { backupPassphraseIncorrect, invalidArchive } from './errors.ts';
import { isStackName } from './limits.ts';

export type SecretState = 'none' | 'opened' | 'no_passphrase' | 'passphrase_incorrect';

export interface SecretsReport {
  status: SecretState;
  identity: SecretState;
  stacks: string[];
}

/** What trying a passphrase on one age file gave. */
export type OpenOutcome<T> =
  | { kind: 'opened'; value: T }
  | { kind: 'wrong' }
  | { kind: 'unreadable'; reason: string };

// ── plaintexts ──────────────────────────────────────────────────────────────────────────────

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SqlKey = v.union([v.string(), v.number(), v.null()]);

const SecretsSchema = v.object({
  formatVersion: v.literal(1),
  sealed: v.array(
    v.object({
      table: v.pipe(v.string(), v.minLength(1)),
      column: v.pipe(v.string(), v.minLength(1)),
      key: v.pipe(v.array(SqlKey), v.minLength(1)),
      value: v.pipe(v.string(), v.regex(BASE64)),
    }),
  ),
  stacks: v.array(
    v.object({
      name: v.pipe(v.string(), v.check(isStackName, 'not a valid stack name')),
      env: v.pipe(v.string(), v.regex(BASE64)),
    }),
  ),
});

export type SecretsPayload = v.InferOutput<typeof SecretsSchema>;

/** Builds the `secrets.age` plaintext, stacks sorted by name. */
export function renderSecrets(payload: Omit<SecretsPayload, 'formatVersion'>): string {
  const stacks = [...payload.stacks].sort((a, b) => compareCodePoints(a.name, b.name));
  return JSON.stringify({ formatVersion: 1, sealed: payload.sealed, stacks });
}

/** Validates the `secrets.age` plaintext; `null` when it is not the JSON of §1.5. */
export function parseSecrets(bytes: Uint8Array): SecretsPayload | null {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
  const r = v.safeParse(SecretsSchema, json);
  if (!r.success) return null;
  const names = r.output.stacks.map((s) => s.name);
  if (new Set(names).size !== names.length) return null;
  return r.output;
}

/** Stacks with a non-empty `.env` in an opened `secrets.age`. */
export const stacksWithEnv = (payload: SecretsPayload): string[] =>
  payload.stacks.filter((s) => s.env.length > 0).map((s) => s.name);

const KEY_LINE = /^[0-9a-f]{64}\n$/;

/** `identity.age` plaintext: 64 lowercase hex and `\n`; `null` when the format is wrong. */
export function parseIdentity(bytes: Uint8Array): Buffer | null {
  const text = Buffer.from(bytes).toString('latin1');
  if (!KEY_LINE.test(text)) return null;
  return Buffer.from(text.slice(0, 64), 'hex');
}

export const renderIdentity = (machineKey: Uint8Array): string =>
  `${Buffer.from(machineKey).toString('hex')}\n`;

// ── resolution (§4.8) ───────────────────────────────────────────────────────────────────────

export type PassphraseSource = 'sent' | 'configured' | 'none';

export interface PassphraseChoice {
  passphrase: string;
  source: PassphraseSource;
}

/** Step 3: the sent passphrase, else the configured one, else "". */
export function choosePassphrase(sent: string | undefined, configured: string | null): PassphraseChoice {
  if (sent !== undefined) return { passphrase: sent, source: 'sent' };
  if (configured !== null && configured !== '') return { passphrase: configured, source: 'configured' };
  return { passphrase: '', source: 'none' };
}

/** Whether any age file must be opened at all (steps 2 and 4 open nothing). */
export const mustOpen = (hasSecrets: boolean, hasIdentity: boolean, choice: PassphraseChoice): boolean =>
  (hasSecrets || hasIdentity) && choice.passphrase !== '';

export interface SecretsResolution {
  report: SecretsReport;
  /** The held error (§4.4 step 9): unreadable → invalid_archive, refusal → backup_passphrase_incorrect. */
  error: AppError | null;
  /** The opened payloads, for the files plan and the import. */
  secrets: SecretsPayload | null;
  machineKey: Buffer | null;
  /** The passphrase tried (sent, configured or ""): the import re-seals the backup passphrase with it. */
  passphrase: string;
}

export function resolveSecrets(input: {
  hasSecrets: boolean;
  hasIdentity: boolean;
  choice: PassphraseChoice;
  secrets?: OpenOutcome<SecretsPayload>;
  identity?: OpenOutcome<Buffer>;
  archiveStacks: readonly string[];
}): SecretsResolution {
  const { hasSecrets, hasIdentity, choice } = input;
  const withStacks = (status: SecretState, identity: SecretState) => ({
    status,
    identity,
    stacks: status === 'opened' ? [] : [...input.archiveStacks],
  });
  if (!hasSecrets && !hasIdentity) {
    return {
      report: withStacks('none', 'none'),
      error: null,
      secrets: null,
      machineKey: null,
      passphrase: '',
    };
  }
  if (choice.passphrase === '') {
    return {
      report: withStacks(hasSecrets ? 'no_passphrase' : 'none', hasIdentity ? 'no_passphrase' : 'none'),
      error: null,
      secrets: null,
      machineKey: null,
      passphrase: '',
    };
  }
  let unreadable: AppError | null = null;
  let refused = false;
  let status: SecretState = 'none';
  let secrets: SecretsPayload | null = null;
  if (hasSecrets) {
    const o = input.secrets ?? { kind: 'unreadable', reason: 'not opened' };
    if (o.kind === 'opened') {
      status = 'opened';
      secrets = o.value;
    } else if (o.kind === 'unreadable') {
      unreadable ??= invalidArchive(`secrets.age cannot be read (${o.reason})`, 'secrets.age');
    } else if (choice.source === 'sent') refused = true;
    else status = 'passphrase_incorrect';
  }
  let identity: SecretState = 'none';
  let machineKey: Buffer | null = null;
  if (hasIdentity) {
    const o = input.identity ?? { kind: 'unreadable', reason: 'not opened' };
    if (o.kind === 'opened') {
      identity = 'opened';
      machineKey = o.value;
    } else if (o.kind === 'unreadable') {
      unreadable ??= invalidArchive(`identity.age cannot be read (${o.reason})`, 'identity.age');
    } else if (choice.source === 'sent' && !hasSecrets) refused = true;
    else identity = 'passphrase_incorrect';
  }
  const error = unreadable ?? (refused ? backupPassphraseIncorrect() : null);
  return { report: withStacks(status, identity), error, secrets, machineKey, passphrase: choice.passphrase };
}
