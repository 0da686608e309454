/** Published host ports of a Compose model (02 §6.1): short and long `ports` syntax. */

export class BadPort extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadPort';
  }
}

const NUMBER = /^[0-9]+$/;

function portNumber(text: string, what: string): number {
  if (!NUMBER.test(text)) throw new BadPort(`${what} ${JSON.stringify(text)} is not a port number`);
  const n = Number(text);
  if (n < 1 || n > 65535) throw new BadPort(`${what} ${text} is outside 1–65535`);
  return n;
}

/** `a` or `a-b` → every port in it. */
export function portRange(text: string, what = 'port'): number[] {
  const dash = text.indexOf('-');
  if (dash < 0) return [portNumber(text, what)];
  const from = portNumber(text.slice(0, dash), what);
  const to = portNumber(text.slice(dash + 1), what);
  if (to < from) throw new BadPort(`${what} range ${text} runs backwards`);
  const out: number[] = [];
  for (let p = from; p <= to; p++) out.push(p);
  return out;
}

/** Host ports of one short-syntax entry `[ip:][host[-host]:]container[-c][/proto]`. */
export function shortSyntaxHostPorts(entry: string): number[] {
  let rest = entry;
  const slash = rest.lastIndexOf('/');
  if (slash >= 0) {
    const proto = rest.slice(slash + 1);
    if (!/^(tcp|udp|sctp)$/.test(proto)) throw new BadPort(`protocol ${JSON.stringify(proto)} in ${entry}`);
    rest = rest.slice(0, slash);
  }
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    if (end < 0 || rest[end + 1] !== ':') throw new BadPort(`bad IPv6 address in ${JSON.stringify(entry)}`);
    rest = rest.slice(end + 2);
    const parts = rest.split(':');
    if (parts.length !== 2) throw new BadPort(`bad port mapping ${JSON.stringify(entry)}`);
    portRange(parts[1]!, 'container port');
    return parts[0] === '' ? [] : portRange(parts[0]!, 'host port');
  }
  // More than three parts: an unbracketed IPv6 address (how docker-compose v1 prints one).
  const parts = rest.split(':');
  portRange(parts[parts.length - 1]!, 'container port');
  if (parts.length === 1) return [];
  const host = parts[parts.length - 2]!;
  return host === '' ? [] : portRange(host, 'host port');
}

/** Host ports one `ports` entry publishes (number, short string or long mapping). */
export function entryHostPorts(entry: unknown): number[] {
  if (typeof entry === 'number') {
    portNumber(String(entry), 'container port');
    return [];
  }
  if (typeof entry === 'string') return shortSyntaxHostPorts(entry);
  if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
    const published = (entry as Record<string, unknown>)['published'];
    if (published === undefined || published === null || published === '') return [];
    if (typeof published === 'number') return portRange(String(published), 'published port');
    if (typeof published === 'string') return portRange(published, 'published port');
  }
  throw new BadPort(`a ports entry ${JSON.stringify(entry)} is neither a number, a string nor a mapping`);
}

/** Every host port any service publishes (all services, any profile or network mode), sorted. */
export function publishedPorts(model: unknown): number[] {
  const ports = new Set<number>();
  const services = (model as { services?: unknown } | null)?.services;
  if (services === null || typeof services !== 'object') return [];
  for (const service of Object.values(services as Record<string, unknown>)) {
    const list = (service as { ports?: unknown } | null)?.ports;
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new BadPort('a service has "ports" that is not a list');
    for (const entry of list) for (const p of entryHostPorts(entry)) ports.add(p);
  }
  return [...ports].sort((a, b) => a - b);
}
