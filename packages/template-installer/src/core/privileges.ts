/** The privilege summary (02 §8), computed from the substituted Compose model. */
import path from 'node:path/posix';
import { byteOrder } from './names.ts';
import { splitVolumeSource } from './template.ts';
import { isPlainObject } from './yaml-doc.ts';

export type PrivilegeKind =
  | 'privileged'
  | 'host_network'
  | 'host_pid'
  | 'host_ipc'
  | 'device_cgroup_rules'
  | 'added_capabilities'
  | 'confinement_disabled'
  | 'group_add'
  | 'container_runtime'
  | 'gpu_reservation'
  | 'host_device'
  | 'docker_socket'
  | 'host_path';

export interface Privilege {
  kind: PrivilegeKind;
  service: string;
  description: string;
  detail?: string;
}

export const PRIVILEGE_DESCRIPTIONS: Record<PrivilegeKind, string> = {
  privileged: 'Runs with every device and capability of the host and no isolation.',
  host_network: "Shares the host's network; its ports open directly on the host.",
  host_pid: 'Sees and can signal every process on the host.',
  host_ipc: "Shares the host's inter-process shared memory.",
  device_cgroup_rules: 'May create and use host devices matching these rules.',
  added_capabilities: 'Gets Linux capabilities beyond the container default.',
  confinement_disabled: 'Runs with part of its security confinement turned off.',
  group_add: 'Runs with extra host group memberships.',
  container_runtime: 'Runs under a different container runtime.',
  gpu_reservation: 'Reserves GPUs through the container runtime.',
  host_device: 'Gets direct access to host devices.',
  docker_socket: 'Can control the container engine, which means full control of the host.',
  host_path: 'Reads or writes host files outside the shares and the cache pool.',
};

const TRUE_WORDS = new Set(['true', 'yes', 'on', 'y']);
const FALSE_WORDS = new Set(['false', 'no', 'off', 'n']);

/** `true|false|yes|no|on|off|y|n` in any case (02 §4 step 12); null when not a boolean. */
export function readBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return null;
  const v = value.toLowerCase();
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  return null;
}

const SOCKET_FILES = new Set(['/var/run/docker.sock', '/run/docker.sock']);
const SOCKET_FOLDERS = new Set(['/', '/run', '/var', '/var/run']);
const LAYOUT = ['/mnt/user/', '/mnt/cache/', '/mnt/disks/'];

export function normalizeAbsolute(p: string): string {
  const n = path.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

/** Strictly below /mnt/user/, /mnt/cache/ or /mnt/disks/ after lexical normalisation. */
export function insideDataLayout(source: string): boolean {
  if (!source.startsWith('/')) return false;
  const n = normalizeAbsolute(source);
  return LAYOUT.some((root) => n.startsWith(root) && n.length > root.length);
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))).filter((x) => x !== '') : [];

/** Host-side sources of a service's mounts, in mount order (binds, then bind-like named volumes). */
function mountSources(svc: Record<string, unknown>, topVolumes: Record<string, unknown>): string[] {
  const binds: string[] = [];
  const named: string[] = [];
  const volumes = Array.isArray(svc['volumes']) ? svc['volumes'] : [];
  for (const entry of volumes) {
    let source: string | undefined;
    let isBind = false;
    if (typeof entry === 'string') {
      const split = splitVolumeSource(entry);
      if (!split) continue;
      source = split.source;
      isBind = /^[/.~]/.test(source);
    } else if (isPlainObject(entry) && typeof entry['source'] === 'string') {
      source = entry['source'];
      isBind = entry['type'] === 'bind';
      if (entry['type'] !== 'bind' && entry['type'] !== 'volume') continue;
    }
    if (source === undefined || source === '') continue;
    if (isBind) binds.push(source);
    else {
      const decl = topVolumes[source];
      const opts = isPlainObject(decl) && isPlainObject(decl['driver_opts']) ? decl['driver_opts'] : null;
      if (!opts) continue;
      const o = typeof opts['o'] === 'string' ? opts['o'] : '';
      const device = typeof opts['device'] === 'string' ? opts['device'] : '';
      const bindOpt = o.split(',').some((x) => x.trim() === 'bind' || x.trim() === 'rbind');
      if ((bindOpt || device.startsWith('/')) && device !== '') named.push(device);
    }
  }
  return [...binds, ...named];
}

function gpuReservation(svc: Record<string, unknown>): string | undefined {
  const deploy = svc['deploy'];
  const res = isPlainObject(deploy) ? deploy['resources'] : undefined;
  const resv = isPlainObject(res) ? res['reservations'] : undefined;
  const devices = isPlainObject(resv) ? resv['devices'] : undefined;
  if (!Array.isArray(devices)) return undefined;
  const items = devices
    .filter(isPlainObject)
    .map((d) => {
      const parts: string[] = [];
      if (d['driver'] !== undefined && d['driver'] !== '') parts.push(`driver ${String(d['driver'])}`);
      if (d['count'] !== undefined && d['count'] !== '') parts.push(`count ${String(d['count'])}`);
      const ids = strings(d['device_ids']);
      if (ids.length) parts.push(`device ids ${ids.join(', ')}`);
      const caps = strings(Array.isArray(d['capabilities']) ? d['capabilities'].flat() : []);
      if (caps.length) parts.push(`capabilities ${caps.join(', ')}`);
      return parts.join(', ');
    })
    .filter((s) => s !== '');
  return items.length ? items.join('; ') : undefined;
}

/** The summary for a substituted Compose model: services in byte order, kinds in table order. */
export function privilegeSummary(model: unknown): Privilege[] {
  const out: Privilege[] = [];
  if (!isPlainObject(model) || !isPlainObject(model['services'])) return out;
  const services = model['services'];
  const topVolumes = isPlainObject(model['volumes']) ? model['volumes'] : {};
  for (const service of Object.keys(services).sort(byteOrder)) {
    const svc = services[service];
    if (!isPlainObject(svc)) continue;
    const push = (kind: PrivilegeKind, detail?: string) =>
      out.push(
        detail === undefined
          ? { kind, service, description: PRIVILEGE_DESCRIPTIONS[kind] }
          : { kind, service, description: PRIVILEGE_DESCRIPTIONS[kind], detail },
      );
    const listed = (kind: PrivilegeKind, list: string[]) => {
      if (list.length) push(kind, list.join(', '));
    };
    if (readBoolean(svc['privileged']) === true) push('privileged');
    if (svc['network_mode'] === 'host') push('host_network');
    if (svc['pid'] === 'host') push('host_pid');
    if (svc['ipc'] === 'host') push('host_ipc');
    listed('device_cgroup_rules', strings(svc['device_cgroup_rules']));
    listed('added_capabilities', strings(svc['cap_add']));
    listed(
      'confinement_disabled',
      strings(svc['security_opt']).filter((opt) => {
        if (/^no-new-privileges[:=]true$/.test(opt)) return false;
        const m = /^apparmor[:=](.+)$/.exec(opt);
        return !(m && m[1] !== 'unconfined');
      }),
    );
    listed('group_add', strings(svc['group_add']));
    const runtime = svc['runtime'];
    if (typeof runtime === 'string' && runtime !== '' && runtime !== 'runc')
      push('container_runtime', runtime);
    const gpu = gpuReservation(svc);
    if (gpu !== undefined) push('gpu_reservation', gpu);
    listed(
      'host_device',
      (Array.isArray(svc['devices']) ? svc['devices'] : [])
        .map((d) =>
          typeof d === 'string' ? d.split(':')[0]! : isPlainObject(d) ? String(d['source'] ?? '') : '',
        )
        .filter((s) => s !== ''),
    );
    // An absolute source is reported as the path it names (lexically normalised: `/mnt/user/../etc`
    // is `/etc`, issue 25), the path the layout check judged; a relative one as written.
    const sources = mountSources(svc, topVolumes).map((src) =>
      src.startsWith('/') ? normalizeAbsolute(src) : src,
    );
    for (const src of sources) {
      if (SOCKET_FILES.has(src) || SOCKET_FOLDERS.has(src)) push('docker_socket', src);
    }
    for (const src of sources) {
      if (!insideDataLayout(src) && !SOCKET_FILES.has(src)) push('host_path', src);
    }
  }
  return out;
}
