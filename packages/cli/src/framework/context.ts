import fs from 'node:fs';
import { type ApplianceClient, createClient, DEFAULT_SOCKET } from '@appliance/client';
import { UsageError } from './exit.ts';
import type { Io } from './io.ts';

/** The options every command takes (declared once on the root command). */
export interface GlobalOptions {
  socket?: string;
  url?: string;
  ca?: string;
  json?: boolean;
}

/** What a command's action gets: the client, the output mode and the streams. */
export class Ctx {
  readonly io: Io;
  readonly json: boolean;
  readonly #globals: GlobalOptions;
  #client: ApplianceClient | null = null;

  constructor(io: Io, globals: GlobalOptions) {
    this.io = io;
    this.#globals = globals;
    this.json = globals.json === true;
  }

  /**
   * The socket (`--socket`, else `APPLIANCE_SOCKET`, else the default) unless an address is given
   * (`--url`, else `APPLIANCE_URL` when no socket was named): then the token of `APPLIANCE_TOKEN`.
   */
  get client(): ApplianceClient {
    if (this.#client) return this.#client;
    const g = this.#globals;
    const env = this.io.env;
    if (g.socket !== undefined && g.url !== undefined)
      throw new UsageError('give either --socket or --url, not both');
    const url =
      g.url ?? (g.socket === undefined && !env['APPLIANCE_SOCKET'] ? env['APPLIANCE_URL'] : undefined);
    if (url !== undefined && url !== '') {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new UsageError(`--url must be an address such as https://appliance.local:8008, not ${url}`);
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
        throw new UsageError(
          `--url must start with https:// (or http:// on loopback), not ${parsed.protocol}`,
        );
      const caPath = g.ca ?? env['APPLIANCE_CA'];
      let ca: Buffer | undefined;
      if (caPath) {
        try {
          ca = fs.readFileSync(caPath);
        } catch (err) {
          throw new UsageError(`cannot read the CA file ${caPath}: ${(err as NodeJS.ErrnoException).code}`);
        }
      }
      const token = env['APPLIANCE_TOKEN'];
      this.#client = createClient({
        url,
        ...(token ? { token } : {}),
        ...(ca ? { ca } : {}),
      });
    } else {
      this.#client = createClient({ socket: g.socket ?? env['APPLIANCE_SOCKET'] ?? DEFAULT_SOCKET });
    }
    return this.#client;
  }

  /** Over the socket the caller is the local administrator; over TCP, the token's account. */
  get viaSocket(): boolean {
    return this.client.options.socket !== undefined;
  }

  /** Prints the API's JSON with `--json`, else the human rendering. */
  out(value: unknown, human: () => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : human());
  }

  /** A line for the person (stderr, so stdout stays the command's output). */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }
}
