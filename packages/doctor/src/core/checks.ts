/**
 * The check definitions: pure functions from the probed facts (facts.ts) to verdicts. A required
 * check that fails means the service cannot do its job (exit 1); an optional one only warns. The
 * split is argued in docs/decisions/install.md.
 */
import { DEBIAN_PACKAGE, type HostTool, HOST_TOOLS } from '@appliance/common';
import type { Facts, TlsFact, TlsPairFact } from './facts.ts';

export type Status = 'ok' | 'warn' | 'fail' | 'skip';

export interface Verdict {
  id: string;
  title: string;
  required: boolean;
  status: Status;
  /** One sentence: what was found. */
  detail: string;
  /** The step that fixes it (only for warn and fail). */
  fix?: string;
  /** The Debian package that fixes it, when one does. */
  package?: string;
}

export interface CheckContext {
  now: Date;
}

type Outcome = Pick<Verdict, 'status' | 'detail' | 'fix' | 'package'>;

export interface CheckDefinition {
  id: string;
  title: string;
  required: boolean;
  evaluate(facts: Facts, ctx: CheckContext): Outcome;
}

/** The Debian package of each tool (the runner's table, from @appliance/common's HOST_TOOLS). */
export const PACKAGE_OF: Record<string, string> = DEBIAN_PACKAGE;

export type ToolCheck = Pick<
  HostTool,
  'tool' | 'required' | 'versionArgs' | 'showsVersion' | 'why' | 'feature'
>;

/** Tools judged by a check of their own (the TLS check, the Docker Engine and Compose checks). */
const JUDGED_ELSEWHERE = new Set(['openssl', 'docker', 'docker-compose']);

/** One check per tool of HOST_TOOLS, in its order. */
export const TOOL_CHECKS: readonly ToolCheck[] = HOST_TOOLS.filter((h) => !JUDGED_ELSEWHERE.has(h.tool));

/** Probed beside TOOL_CHECKS: judged by the TLS and Docker checks. */
export const EXTRA_TOOLS: readonly ToolCheck[] = HOST_TOOLS.filter((h) => JUDGED_ELSEWHERE.has(h.tool));

const install = (pkg: string) => `apt-get install ${pkg}`;

/** Free space below which the state directory fails (the database and its WAL cannot grow). */
export const STATE_DIR_MIN_BYTES = 256 * 1024 ** 2;
/** Free space below which it warns (config exports, app stacks, import previews). */
export const STATE_DIR_WARN_BYTES = 2 * 1024 ** 3;
/** A certificate that expires within this many days warns. */
export const CERT_WARN_DAYS = 30;

export const CHECKS: readonly CheckDefinition[] = [
  {
    id: 'node',
    title: 'Node.js',
    required: true,
    evaluate: ({ node }) => {
      const major = Number(node.version.split('.')[0]);
      return major >= 24
        ? { status: 'ok', detail: `Node ${node.version}` }
        : {
            status: 'fail',
            detail: `Node ${node.version}; the service and its native modules need Node 24`,
            fix: 'install Node 24 (docs/install.md, "Node 24") and point APPLIANCE_NODE at it',
          };
    },
  },
  {
    id: 'user',
    title: 'runs as root',
    required: false,
    evaluate: ({ uid }) =>
      uid === null || uid === 0
        ? { status: 'ok', detail: 'root, like the service' }
        : {
            status: 'warn',
            detail: `uid ${uid}: the service runs as root, so files and sockets may look different to it`,
            fix: 'run `sudo appliance doctor` to see the host as the service does',
          },
  },
  {
    id: 'config',
    title: 'configuration',
    required: true,
    evaluate: ({ config }) => {
      if (!config.ok)
        return {
          status: 'fail',
          detail: config.error,
          fix: 'correct the file (every key: docs/configuration.md); the service does not start until it loads',
        };
      return {
        status: 'ok',
        detail: config.exists
          ? `${config.file} loads${config.root ? ` (root prefix ${config.root})` : ''}`
          : `no ${config.file}: the defaults apply${config.root ? ` (root prefix ${config.root})` : ''}`,
      };
    },
  },
  ...TOOL_CHECKS.map(toolCheck),
  {
    id: 'docker',
    title: 'Docker Engine',
    required: false,
    evaluate: ({ docker, tools }) => {
      if (docker.reachable)
        return {
          status: 'ok',
          detail: `reachable at ${docker.socket}${docker.version ? ` (Engine ${docker.version})` : ''}`,
        };
      const cli = tools['docker']?.found === true;
      return {
        status: 'fail',
        detail: `${docker.error} — needed only to install and run apps`,
        ...(cli || docker.socket === null
          ? {
              fix:
                docker.socket === null
                  ? 'set DOCKER_HOST to a unix:// socket in the service environment, or unset it'
                  : `start the daemon (systemctl enable --now docker) or set DOCKER_HOST=unix://PATH in the service environment`,
            }
          : { fix: `${install('docker.io')} && systemctl enable --now docker`, package: 'docker.io' }),
      };
    },
  },
  {
    id: 'compose',
    title: 'Docker Compose',
    required: false,
    evaluate: ({ compose }) => {
      if (compose.plugin) return { status: 'ok', detail: `docker compose ${compose.plugin} (v2 plugin)` };
      if (compose.standalone) {
        const flavour = compose.standalone.startsWith('1.') ? 'v1' : 'v2';
        return { status: 'ok', detail: `docker-compose ${compose.standalone} (${flavour})` };
      }
      return {
        status: 'fail',
        detail: 'neither `docker compose` nor `docker-compose` answers — needed only to install and run apps',
        fix: install('docker-compose'),
        package: 'docker-compose',
      };
    },
  },
  {
    id: 'socket-group',
    title: 'socket group',
    required: false,
    evaluate: ({ socketGroup: g }) => {
      if (!g) return { status: 'skip', detail: 'the configuration did not load' };
      if (g.gid === null)
        return {
          status: 'fail',
          detail: `no group "${g.group}": the socket ${g.socket} is root-only (0600), so only root can use the local CLI`,
          fix: `groupadd --system ${g.group} && systemctl restart appliance; then usermod -aG ${g.group} NAME for each operator`,
        };
      const members = g.members.length > 0 ? `members ${g.members.join(', ')}` : 'no members yet';
      return {
        status: 'ok',
        detail: `group ${g.group} (gid ${g.gid}, ${members}): the socket ${g.socket} is 0660 root:${g.group}`,
      };
    },
  },
  {
    id: 'tls',
    title: 'TLS certificate',
    required: true,
    evaluate: ({ tls, tools }, ctx) => {
      if (!tls) return { status: 'skip', detail: 'the configuration did not load' };
      return tlsOutcome(tls, tools['openssl']?.found === true, ctx.now);
    },
  },
  {
    id: 'state-dir',
    title: 'state directory space',
    required: true,
    evaluate: ({ stateDir: s }) => {
      if (!s) return { status: 'skip', detail: 'the configuration did not load' };
      if (s.freeBytes === null)
        return {
          status: 'fail',
          detail: `cannot measure ${s.measured}: ${s.error ?? 'unknown error'}`,
          fix: `make ${s.path} (or its parent) exist and readable by root`,
        };
      const where = s.measured === s.path ? s.path : `${s.path} (not created yet; measured ${s.measured})`;
      const free = `${formatBytes(s.freeBytes)} free for ${where}`;
      const fix = `free space on the filesystem of ${s.measured}, or put ${s.path} on a larger one (a bind mount)`;
      if (s.freeBytes < STATE_DIR_MIN_BYTES)
        return {
          status: 'fail',
          detail: `${free}; the database needs at least ${formatBytes(STATE_DIR_MIN_BYTES)}`,
          fix,
        };
      if (s.freeBytes < STATE_DIR_WARN_BYTES)
        return {
          status: 'warn',
          detail: `${free}; config exports and app stacks want ${formatBytes(STATE_DIR_WARN_BYTES)}`,
          fix,
        };
      return { status: 'ok', detail: free };
    },
  },
];

function toolCheck(t: ToolCheck): CheckDefinition {
  return {
    id: t.tool,
    title: t.tool,
    required: t.required,
    evaluate: ({ tools }) => {
      const fact = tools[t.tool];
      if (fact?.found)
        return {
          status: 'ok',
          detail: fact.version && t.showsVersion ? fact.version : 'installed',
        };
      const pkg = PACKAGE_OF[t.tool];
      return {
        status: 'fail',
        detail: `not installed — ${t.why}`,
        ...(pkg ? { fix: install(pkg), package: pkg } : { fix: `install ${t.tool}` }),
      };
    },
  };
}

function tlsOutcome(tls: TlsFact, opensslFound: boolean, now: Date): Outcome {
  if (!tls.use) return { status: 'skip', detail: tls.reason };
  if (tls.source === 'half-configured') {
    const other = tls.set === 'tlsCert' ? 'tlsKey' : 'tlsCert';
    const inner = tlsOutcome(tls.fallback, opensslFound, now);
    return {
      status: inner.status === 'fail' ? 'fail' : 'warn',
      detail: `server.${tls.set} is set without server.${other}: the service ignores it and ${
        tls.fallback.use && tls.fallback.source === 'generated' ? 'serves' : 'generates'
      } a self-signed pair (${inner.detail})`,
      fix: `set both server.tlsCert and server.tlsKey (or neither)${inner.fix ? `; ${inner.fix}` : ''}`,
    };
  }
  if (tls.source === 'to-generate') {
    return opensslFound
      ? {
          status: 'ok',
          detail: `no pair yet: a self-signed one is generated into ${tls.dir} on the first start`,
        }
      : {
          status: 'fail',
          detail: `no pair in ${tls.dir} and no openssl to generate one: the HTTPS listener cannot start`,
          fix: `${install('openssl')}, or set server.tlsCert and server.tlsKey`,
          package: 'openssl',
        };
  }
  return pairOutcome(tls.pair, tls.source, now);
}

function pairOutcome(pair: TlsPairFact, source: 'configured' | 'generated', now: Date): Outcome {
  const replace =
    source === 'configured'
      ? 'point server.tlsCert and server.tlsKey at a matching, current pair'
      : `delete ${pair.certFile} and ${pair.keyFile} to get a new self-signed pair at the next start, or configure server.tlsCert and server.tlsKey`;
  if (pair.cert.state !== 'ok')
    return {
      status: 'fail',
      detail: `certificate ${pair.certFile}: ${pair.cert.error}`,
      fix: replace,
    };
  if (pair.key.state !== 'ok')
    return { status: 'fail', detail: `key ${pair.keyFile}: ${pair.key.error}`, fix: replace };
  if (pair.keyMatches === false)
    return {
      status: 'fail',
      detail: `the key ${pair.keyFile} does not belong to the certificate ${pair.certFile}`,
      fix: replace,
    };
  const { subject, notBefore, notAfter } = pair.cert;
  if (now < new Date(notBefore))
    return { status: 'fail', detail: `${subject} is not valid before ${notBefore}`, fix: replace };
  if (now > new Date(notAfter))
    return { status: 'fail', detail: `${subject} expired on ${notAfter}`, fix: replace };
  const days = Math.floor((new Date(notAfter).getTime() - now.getTime()) / 86_400_000);
  if (days < CERT_WARN_DAYS)
    return { status: 'warn', detail: `${subject} expires in ${days} days (${notAfter})`, fix: replace };
  if (pair.keyMode !== null && (pair.keyMode & 0o077) !== 0)
    return {
      status: 'warn',
      detail: `${subject}, valid until ${notAfter}, but the key is readable by others (mode ${pair.keyMode.toString(8).padStart(4, '0')})`,
      fix: `chmod 600 ${pair.keyFile}`,
    };
  return { status: 'ok', detail: `${subject} (${source}), valid until ${notAfter}` };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** Every check's verdict; an optional check's failure is a warning. */
export function evaluate(facts: Facts, ctx: CheckContext): Verdict[] {
  return CHECKS.map((c) => {
    const o = c.evaluate(facts, ctx);
    const status = o.status === 'fail' && !c.required ? 'warn' : o.status;
    const v: Verdict = { id: c.id, title: c.title, required: c.required, status, detail: o.detail };
    if ((status === 'warn' || status === 'fail') && o.fix) v.fix = o.fix;
    if ((status === 'warn' || status === 'fail') && o.package) v.package = o.package;
    return v;
  });
}
