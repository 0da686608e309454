import { describe, expect, it } from 'vitest';
import { canonicalPlanJson, planDigest } from './digest.ts';
import { encodeEnvFile, encodeEnvValue, parseEnvFile } from './env-file.ts';
import { OutsideSubset, RequiredVariableMissing, substitute, tokenize } from './interpolate.ts';
import { BadPort, entryHostPorts, publishedPorts } from './ports.ts';

describe('planDigest', () => {
  it('matches the spec vector', () => {
    const input = {
      compose: 'services:\n  app:\n    image: busybox:1.37\n',
      id: 'demo',
      privileges: [],
      revision: 1,
      source: 'builtin',
    };
    expect(canonicalPlanJson(input)).toBe(
      '{"compose":"services:\\n  app:\\n    image: busybox:1.37\\n","id":"demo","privileges":[],"revision":1,"source":"builtin"}',
    );
    expect(planDigest(input)).toBe('ccebb6bb3cffb34ecc198544a70cd4443ac88ebfa52758937b8118a1c0037765');
  });
  it('sorts privilege keys and omits an absent detail', () => {
    const json = canonicalPlanJson({
      compose: 'x',
      id: 'a',
      revision: 2,
      source: 's',
      privileges: [
        { kind: 'host_pid', service: 'a', description: 'd' },
        { kind: 'group_add', service: 'a', description: 'e', detail: '44' },
      ],
    });
    expect(json).toContain(
      '[{"description":"d","kind":"host_pid","service":"a"},{"description":"e","detail":"44","kind":"group_add","service":"a"}]',
    );
  });
});

describe('.env encoding', () => {
  it('follows the quoting examples of the spec', () => {
    expect(encodeEnvValue('my secret')).toBe('"my secret"');
    expect(encodeEnvValue('/mnt/user/my $media #1')).toBe('"/mnt/user/my \\$media #1"');
    expect(encodeEnvValue('0.0.0.0/0, ::/0')).toBe('"0.0.0.0/0, ::/0"');
    expect(encodeEnvValue('')).toBe('');
    expect(encodeEnvValue('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(encodeEnvValue('/mnt/cache/appdata')).toBe('/mnt/cache/appdata');
  });
  it('writes every name in byte order, nothing else', () => {
    expect(encodeEnvFile({ b: '1', TZ: 'UTC', A: '' })).toBe('A=\nTZ=UTC\nb=1\n');
  });
  it('reads back what it writes (v2), and sends v1 "$" values to the tool', () => {
    const values = { A: 'my secret', B: '/mnt/user/my $media #1', C: '', D: 'x"y\\z' };
    const parsed = parseEnvFile(encodeEnvFile(values), 'v2');
    expect(Object.fromEntries(parsed)).toEqual(values);
    expect(() => parseEnvFile(encodeEnvFile(values), 'v1')).toThrow(OutsideSubset);
    expect(Object.fromEntries(parseEnvFile('# c\n\nA="a b"\n', 'v1'))).toEqual({ A: 'a b' });
  });
  it('leaves other forms to the tool', () => {
    for (const text of ["A='x'\n", 'export A=1\n', 'A=a b\n', 'A="x\\ny"\n', 'A=1\nA=2\n'])
      expect(() => parseEnvFile(text, 'v2')).toThrow(OutsideSubset);
  });
});

describe('substitution', () => {
  const env = new Map([
    ['SET', 'v'],
    ['EMPTY', ''],
  ]);
  const lookup = (n: string) => env.get(n);
  it('reads every supported form', () => {
    expect(substitute('$SET ${SET} $$ $${SET}', lookup)).toBe('v v $ ${SET}');
    expect(substitute('${EMPTY:-d}|${EMPTY-d}|${UNSET-d}|${UNSET:-d}|$UNSET', lookup)).toBe('d||d|d|');
    expect(substitute('${SET:?must}', lookup)).toBe('v');
    expect(() => substitute('${EMPTY:?must}', lookup)).toThrow(RequiredVariableMissing);
    expect(substitute('${EMPTY?must}', lookup)).toBe('');
    expect(() => substitute('${UNSET?must}', lookup)).toThrow(RequiredVariableMissing);
  });
  it('refuses what is outside the subset', () => {
    for (const s of ['${A:+x}', '${A:-${B}}', '$1', '${', 'a $ b', '${A B}'])
      expect(() => tokenize(s)).toThrow(OutsideSubset);
  });
});

describe('ports', () => {
  it('reads the short syntax host part', () => {
    expect(entryHostPorts('8080:80')).toEqual([8080]);
    expect(entryHostPorts('127.0.0.1:8080:80/udp')).toEqual([8080]);
    expect(entryHostPorts('[::1]:8081:80')).toEqual([8081]);
    expect(entryHostPorts('9000-9002:9000-9002')).toEqual([9000, 9001, 9002]);
    expect(entryHostPorts('80')).toEqual([]);
    expect(entryHostPorts('127.0.0.1::80')).toEqual([]);
    expect(entryHostPorts(80)).toEqual([]);
  });
  it('reads the long syntax', () => {
    expect(entryHostPorts({ target: 80, published: 8080 })).toEqual([8080]);
    expect(entryHostPorts({ target: 80, published: '8080-8081' })).toEqual([8080, 8081]);
    expect(entryHostPorts({ target: 80 })).toEqual([]);
  });
  it('refuses bad ports', () => {
    for (const bad of ['0:80', '65536:80', '90-80:80', 'x:80', '8080:80/icmp'])
      expect(() => entryHostPorts(bad)).toThrow(BadPort);
  });
  it('collects every service', () => {
    expect(
      publishedPorts({
        services: { a: { ports: ['1:1'] }, b: { ports: [{ published: '2' }], profiles: ['x'] }, c: {} },
      }),
    ).toEqual([1, 2]);
  });
});
