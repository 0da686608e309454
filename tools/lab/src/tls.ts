/** TLS files for tests of HTTPS clients: a throwaway CA and a server certificate it signed. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A CA and a server certificate for 127.0.0.1, made with openssl in a temp dir. */
export function makeTlsFiles(): { dir: string; ca: string; cert: string; key: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-tls-'));
  const f = (n: string) => path.join(dir, n);
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=test CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=appliance',
    '-keyout',
    f('key.pem'),
    '-out',
    f('req.csr'),
  ]);
  fs.writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run([
    'x509',
    '-req',
    '-in',
    f('req.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('cert.pem'),
  ]);
  return { dir, ca: f('ca.pem'), cert: f('cert.pem'), key: f('key.pem') };
}
