/**
 * A NUT network protocol client (upsd, RFC 9271): `LIST VAR <ups>` over TCP, read-only, no login.
 * Errors from upsd (`ERR UNKNOWN-UPS`, `ERR DATA-STALE`, …) and connection failures are thrown
 * with a sentence saying what to check.
 */
import net from 'node:net';

export class NutError extends Error {
  override name = 'NutError';
}

/** One `VAR <ups> <name> "<value>"` line (NUT escapes `"` and `\` inside the quotes). */
export function parseVarLine(line: string): [string, string] | null {
  const m = /^VAR \S+ (\S+) "((?:[^"\\]|\\.)*)"$/.exec(line);
  return m ? [m[1]!, m[2]!.replace(/\\(.)/g, '$1')] : null;
}

export async function readUpsVariables(options: {
  host: string;
  port: number;
  name: string;
  timeoutMs?: number;
}): Promise<Record<string, string>> {
  const { host, port, name } = options;
  const where = `${host}:${port}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const vars: Record<string, string> = {};
    let buffer = '';
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      socket.end('LOGOUT\n');
      socket.destroy();
      if (err) reject(err);
      else resolve(vars);
    };
    socket.setTimeout(options.timeoutMs ?? 5000, () =>
      finish(new NutError(`the NUT server at ${where} did not answer in time`)),
    );
    socket.on('error', (e: NodeJS.ErrnoException) =>
      finish(
        new NutError(
          `the NUT server at ${where} is not reachable (${e.code ?? e.message}): check that upsd runs and listens there`,
        ),
      ),
    );
    socket.on('connect', () => socket.write(`LIST VAR ${name}\n`));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        const eol = buffer.indexOf('\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol).replace(/\r$/, '');
        buffer = buffer.slice(eol + 1);
        if (line.startsWith('ERR ')) {
          const code = line.slice(4).trim();
          const why =
            code === 'UNKNOWN-UPS'
              ? `upsd at ${where} knows no UPS named ${name}: check the UPS name in the settings (upsc -l ${where})`
              : code === 'DATA-STALE' || code === 'DRIVER-NOT-CONNECTED'
                ? `upsd at ${where} has no fresh data from the UPS ${name} (${code}): check its cable and driver`
                : `upsd at ${where} answered ${code}`;
          return finish(new NutError(why));
        }
        if (line.startsWith(`END LIST VAR`)) return finish(null);
        const v = parseVarLine(line);
        if (v) vars[v[0]] = v[1];
      }
    });
    socket.on('close', () => finish(new NutError(`the NUT server at ${where} closed the connection`)));
  });
}
