/**
 * Cross-checks with the real `age` CLI. `age -d` reads a passphrase only from a terminal (there is
 * no environment variable or stdin option in age 1.x), so it runs under util-linux `script`, which
 * gives it a pseudo-terminal fed from our stdin.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export async function ageDecryptWithCli(
  ciphertext: Uint8Array,
  passphrase: string,
): Promise<{ ok: boolean; plaintext: Buffer; stderr: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'age-cli-'));
  try {
    const input = path.join(dir, 'in.age');
    const output = path.join(dir, 'out');
    fs.writeFileSync(input, ciphertext);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile(
        'script',
        ['-q', '-e', '-c', `age -d -o '${output}' '${input}'`, '/dev/null'],
        { timeout: 60_000 },
        (err, _stdout, stderrText) =>
          resolve({
            code: err ? Number((err as { code?: number }).code ?? 1) : 0,
            stderr: String(stderrText),
          }),
      );
      child.stdin?.end(`${passphrase}\n`);
    });
    const ok = code === 0 && fs.existsSync(output);
    return { ok, plaintext: ok ? fs.readFileSync(output) : Buffer.alloc(0), stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
