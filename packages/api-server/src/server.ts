import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  type Clock,
  createInventoryReader,
  type HostPaths,
  type CommandRunner,
  createCommandRunner,
  createHostPaths,
  SOCKET_GROUP,
  systemClock,
  type InventoryReader,
} from '@appliance/common';
import { readCommitMarker, recoverImport } from '@appliance/archive-preview';
import { createSambaAccounts } from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { Hono } from 'hono';
import { type Config, isLoopback } from './config.ts';
import type { AppContext, Hooks } from './context.ts';
import {
  MachineKeyError,
  createSealer,
  loadOrCreateMachineKey,
  machineKeyCheck,
  sameCheck,
} from './db/machine-key.ts';
import { openDatabase } from './db/open.ts';
import { machineKeyCheck as machineKeyCheckTable } from './db/schema.ts';
import { WalSyncer } from './db/wal-syncer.ts';
import { WriteQueue } from './db/write-queue.ts';
import { allFeatures } from './features/index.ts';
import { type AppEnv, createApp } from './http/app.ts';
import { nodeListener } from './http/listener.ts';
import { webUi } from './http/web-ui.ts';
import { type Logger, createLogger } from './logger.ts';
import { AuditLog } from './services/audit.ts';
import { type Authenticator, Lockout, Passwords, TOKEN_USAGE_FLUSH_MS } from '@appliance/accounts';
import { createAuthenticator } from './features/session/deps.ts';
import { EventBus } from './services/events.ts';
import { GeneratedFiles } from './services/generated-files.ts';
import { KeyedLocks } from './services/locks.ts';
import { ObservedEvents } from './services/observed-events.ts';
import { OperationGate } from './services/operation-gate.ts';
import { createConditions, createJobRunner, createScheduler } from './features/jobs/deps.ts';
import { realTimers, type WatcherTimers, WatcherRunner } from '@appliance/watchers';

export { VERSION } from './version.ts';
import { VERSION } from './version.ts';

export interface StartOptions {
  config: Config;
  logger?: Logger;
  clock?: Clock;
  runner?: CommandRunner;
  inventory?: InventoryReader;
  /** Replace hooks (tests inject failures this way). */
  hooks?: Partial<Hooks>;
  passwords?: Passwords;
  /** Run the scheduler's timer (default true; tests that drive `ctx.scheduler.tick()` may turn it off). */
  scheduler?: boolean;
  /**
   * How often the noted token uses are written (`lastUsedAt`); default every 5 minutes, null: only
   * when the server closes (test sandboxes, whose read-only proofs compare the database).
   */
  tokenUsageFlushMs?: number | null;
  /** The watchers' timers (tests: `manualTimers`, cycles driven with `ctx.watchers.runOnce`). */
  watcherTimers?: WatcherTimers;
}

export interface RunningServer {
  ctx: AppContext;
  app: Hono<AppEnv>;
  auth: Authenticator;
  /** `http(s)://host:port` of the TCP listener, or null. */
  url: string | null;
  socketPath: string;
  close(): Promise<void>;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

/** Opens the database, checks the machine key, composes the features and starts both listeners. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  const logger = options.logger ?? createLogger(undefined, config.logLevel);
  const paths = createHostPaths({ root: config.root, hostRoot: config.hostRoot });
  fs.mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(paths.stateDir, 0o700);
  fs.mkdirSync(paths.etcDir, { recursive: true, mode: 0o755 });
  // The stacks folder exists from the first start, so that no request (not even a refused one)
  // is the first to create it.
  fs.mkdirSync(paths.stacksDir, { recursive: true, mode: 0o755 });

  // A config import interrupted by a crash is rolled back or finished before anything reads the
  // machine key or the database (08 §14; see docs/decisions/config-archive.md).
  const runner = options.runner ?? createCommandRunner({ path: config.toolPath });
  const recovered = await recoverImport(
    paths,
    () => readCommitMarker(paths.database),
    async (real) => {
      await runner.run('umount', [real], { timeoutMs: 60_000 });
    },
  );
  if (recovered !== 'none') logger.info('config import interrupted by a restart', { outcome: recovered });

  const databaseExists = fs.existsSync(paths.database);
  let key: Buffer;
  try {
    key = loadOrCreateMachineKey(paths.machineKey, databaseExists).key;
  } catch (err) {
    if (err instanceof MachineKeyError) throw new StartupError(err.message);
    throw err;
  }
  const opened = openDatabase(paths.database, { asyncDurability: true });
  const walSyncer = new WalSyncer(`${paths.database}-wal`);
  const check = machineKeyCheck(key);
  const clock = options.clock ?? systemClock;
  const stored = opened.db.select().from(machineKeyCheckTable).where(eq(machineKeyCheckTable.id, 1)).get();
  if (stored && !sameCheck(stored.hmac, check)) {
    opened.close();
    throw new StartupError(
      `The machine key ${paths.machineKey} does not belong to the database ${paths.database}. Restore the key that was in use with this database; startup stopped so that no sealed secret is lost.`,
    );
  }
  if (!stored)
    opened.db
      .insert(machineKeyCheckTable)
      .values({ id: 1, hmac: check, createdAt: clock.now().toISOString() })
      .run();

  const hooks: Hooks = {
    regenerateSamba: async () => undefined,
    shareDataDeleteRunning: () => false,
    // Unix and Samba accounts on the real host, and in a sandbox that runs its own smbd
    // (samba.sandbox: the Samba accounts go to the sandbox's passdb through its smb.conf; the file
    // owner is a real Unix account). Any other sandbox never touches the host's users.
    ...(config.root === '' || config.samba.sandbox
      ? {
          sambaAccounts: createSambaAccounts({
            runner,
            passwdFile: paths.etcPasswd,
            smbConf: paths.sambaConf,
          }),
        }
      : {}),
    ...options.hooks,
  };
  const ctx = {
    config,
    paths,
    clock,
    runner,
    logger,
    db: opened.db,
    sqlite: opened.sqlite,
    writes: new WriteQueue(opened.sqlite, opened.db, { syncer: walSyncer }),
    sealer: createSealer(key),
    machineKeyCheck: check,
    audit: new AuditLog(() => clock.now(), opened.sqlite),
    events: new EventBus(),
    locks: new KeyedLocks(),
    gate: new OperationGate(),
    inventory: options.inventory ?? defaultInventory(paths, runner, config),
    hooks,
    random: { uuid: randomUUID, bytes: randomBytes },
    jobs: undefined as unknown as AppContext['jobs'],
    scheduler: undefined as unknown as AppContext['scheduler'],
  } as Omit<AppContext, 'conditions' | 'watchers' | 'generated' | 'observed'> as AppContext;
  ctx.jobs = createJobRunner(ctx);
  ctx.scheduler = createScheduler(ctx);
  ctx.conditions = createConditions(ctx);
  ctx.generated = new GeneratedFiles(ctx);
  ctx.observed = new ObservedEvents<AppContext>();
  ctx.watchers = new WatcherRunner({
    conditions: ctx.conditions,
    clock,
    logger,
    timers: options.watcherTimers ?? realTimers,
  });
  const passwords = options.passwords ?? new Passwords();
  const auth = createAuthenticator(ctx, passwords, new Lockout());
  const features = allFeatures(auth, passwords, VERSION);
  for (const f of features) for (const decl of f.raises ?? []) ctx.observed.add(decl);
  const stops: Array<() => void | Promise<void>> = [];
  for (const f of features) {
    const stop = await f.start?.(ctx);
    if (typeof stop === 'function') stops.push(stop);
  }
  if (options.hooks) Object.assign(hooks, options.hooks);
  // Jobs a stopped service left running are recorded interrupted before anything can start one;
  // then the scheduler runs what is due (a slot missed while down runs now, once).
  await ctx.jobs.recover();
  if (options.scheduler !== false) ctx.scheduler.start();
  const flushMs = options.tokenUsageFlushMs === undefined ? TOKEN_USAGE_FLUSH_MS : options.tokenUsageFlushMs;
  if (flushMs !== null) auth.usage.startFlushing(flushMs);
  // Every feature registered its watchers in start: the loops begin now (their first cycles a
  // second or more later, staggered, so startup stays quick).
  ctx.watchers.start();
  const app = createApp(
    ctx,
    auth,
    features.flatMap((f) => f.routes),
    webUi(),
  );

  const socketServer = await listenUnix(app, config.socket, logger);
  let tcpServer: net.Server | null = null;
  let url: string | null = null;
  if (config.listen) {
    const tls = config.tls === 'on' || (config.tls === 'auto' && !isLoopback(config.listen.host));
    const listener = nodeListener(app, logger, (incoming) => ({
      transport: 'tcp',
      remoteAddress: incoming.socket?.remoteAddress ?? 'unknown',
    }));
    // node:https (and node:tls with it) loads only when the listener is TLS.
    if (tls) {
      const httpsServer = (await import('node:https')).createServer(
        tlsMaterial(config, paths.etcDir),
        listener,
      );
      ctx.hooks.reloadTls = () => httpsServer.setSecureContext(tlsMaterial(config, paths.etcDir));
      tcpServer = httpsServer;
    } else tcpServer = http.createServer(listener);
    await new Promise<void>((resolve, reject) => {
      tcpServer!.once('error', reject);
      tcpServer!.listen(config.listen!.port, config.listen!.host, () => resolve());
    });
    const addr = tcpServer.address() as net.AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    url = `${tls ? 'https' : 'http'}://${host}:${addr.port}`;
  }
  logger.info('listening', { url, socket: config.socket, root: config.root || '/', lab: config.lab.enabled });

  let closing: Promise<void> | null = null;
  return {
    ctx,
    app,
    auth,
    url,
    socketPath: config.socket,
    close() {
      closing ??= (async () => {
        const closeServer = (s: net.Server | null) =>
          new Promise<void>((resolve) => {
            if (!s) return resolve();
            s.close(() => resolve());
            (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          });
        await Promise.all([closeServer(tcpServer), closeServer(socketServer)]);
        await ctx.scheduler.stop();
        await ctx.jobs.stop();
        auth.usage.stopFlushing();
        await ctx.watchers.stop();
        for (const stop of stops.reverse()) await stop();
        await auth.usage
          .flush()
          .catch((err: unknown) =>
            logger.warn('token uses not stored', { error: err instanceof Error ? err.message : String(err) }),
          );
        await ctx.writes.run(() => undefined).catch(() => undefined);
        opened.close();
        walSyncer.close();
        fs.rmSync(config.socket, { force: true });
      })();
      return closing;
    },
  };
}

function defaultInventory(paths: HostPaths, runner: CommandRunner, config: Config): InventoryReader {
  return createInventoryReader({
    paths,
    runner,
    lab: { enabled: config.lab.enabled, ...(config.lab.imageDir ? { imageDir: config.lab.imageDir } : {}) },
  });
}

/** The Unix socket: a stale file is replaced, a live one makes startup fail (00 §3). */
async function listenUnix(app: Hono<AppEnv>, socketPath: string, logger: Logger): Promise<net.Server> {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o755 });
  if (fs.existsSync(socketPath)) {
    const live = await new Promise<boolean>((resolve) => {
      const s = net.connect(socketPath);
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (live)
      throw new StartupError(`Another appliance service is answering on ${socketPath}; stop it first.`);
    fs.rmSync(socketPath, { force: true });
  }
  const server = http.createServer(
    nodeListener(app, logger, () => ({ transport: 'unix', remoteAddress: 'local' })),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  const gid = groupId(SOCKET_GROUP);
  if (gid !== null) {
    fs.chownSync(socketPath, 0, gid);
    fs.chmodSync(socketPath, 0o660);
  } else {
    fs.chmodSync(socketPath, 0o600);
  }
  return server;
}

function groupId(name: string): number | null {
  try {
    const line = fs
      .readFileSync('/etc/group', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[0] === name);
    return line ? Number(line.split(':')[2]) : null;
  } catch {
    return null;
  }
}

/**
 * The names a generated certificate carries, so that a client that trusts it (`--ca cert.pem`) can
 * also verify the address it connects to: `appliance`, this machine's host name (and `.local`),
 * the loopback addresses, the listen address, and the machine's other addresses at first start
 * (a box that changes addresses later gets a new certificate by deleting the pair, or its own).
 */
export function certificateNames(config: Pick<Config, 'listen'>): string[] {
  const names = new Set<string>(['DNS:appliance']);
  const host = os.hostname();
  if (
    /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(host)
  ) {
    names.add(`DNS:${host}`);
    if (!host.includes('.')) names.add(`DNS:${host}.local`);
  }
  const ips = new Set<string>(['127.0.0.1', '::1']);
  const listenHost = config.listen?.host.replace(/^\[|\]$/g, '') ?? '';
  if (net.isIP(listenHost) && listenHost !== '0.0.0.0' && listenHost !== '::') ips.add(listenHost);
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (!a.internal && !a.address.startsWith('fe80:')) ips.add(a.address);
  for (const ip of ips) names.add(`IP:${ip}`);
  return [...names];
}

/** Configured certificate and key, or a self-signed pair generated with openssl on first start. */
function tlsMaterial(config: Config, etcDir: string): { key: Buffer; cert: Buffer } {
  if (config.tlsCert && config.tlsKey)
    return { cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey) };
  const dir = path.join(etcDir, 'tls');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  if (!fs.existsSync(cert) || !fs.existsSync(key)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '3650',
        '-subj',
        '/CN=appliance',
        '-addext',
        `subjectAltName=${certificateNames(config).join(',')}`,
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    fs.chmodSync(key, 0o600);
  }
  return { cert: fs.readFileSync(cert), key: fs.readFileSync(key) };
}
