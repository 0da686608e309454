/**
 * An ACME (RFC 8555) order through `acme-client`: account (created or found by its key), order,
 * HTTP-01 challenge answered by the caller's responder, finalize, the certificate chain. A refusal
 * throws with the ACME server's problem detail as the message.
 */
/** acme-client (and axios under it) loads on the first renewal, not at the service's start. */
const load = async () => (await import('acme-client')).default;

export interface ChallengeResponder {
  set(token: string, keyAuthorization: string): void;
  remove(token: string): void;
}

export interface IssueInput {
  directoryUrl: string;
  /** PEM of the account key. */
  accountKey: Buffer | string;
  domain: string;
  email?: string | null;
  /** Extra CA certificates to trust for the directory (a test CA such as pebble's). */
  ca?: Buffer | null;
  challenges: ChallengeResponder;
}

export interface Issued {
  /** PEM chain, leaf first. */
  cert: string;
  /** PEM private key of the certificate. */
  key: string;
  notAfter: string;
}

/** A new account key (PEM). */
export async function createAccountKey(): Promise<Buffer> {
  const acme = await load();
  return acme.crypto.createPrivateKey();
}

export async function issueCertificate(input: IssueInput): Promise<Issued> {
  const acme = await load();
  // acme-client's HTTP client is one axios instance: the CA applies to its requests only.
  if (input.ca) acme.axios.defaults.httpsAgent = new (await import('node:https')).Agent({ ca: input.ca });
  const client = new acme.Client({
    directoryUrl: input.directoryUrl,
    accountKey: input.accountKey,
    backoffAttempts: 10,
    backoffMin: 500,
    backoffMax: 5000,
  });
  // The account: found by its key (a POST-as-GET, RFC 8555 §7.3.1 onlyReturnExisting), else
  // created. `auto` would re-send the terms to an existing account, an "empty update" that strict
  // servers (pebble) refuse.
  try {
    await client.createAccount({ onlyReturnExisting: true });
  } catch {
    await client.createAccount({
      termsOfServiceAgreed: true,
      ...(input.email ? { contact: [`mailto:${input.email}`] } : {}),
    });
  }
  const [key, csr] = await acme.crypto.createCsr({ commonName: input.domain });
  const cert = await client.auto({
    csr,
    termsOfServiceAgreed: true,
    challengePriority: ['http-01'],
    // the ACME server validates; a self-check through the public name may not loop back
    skipChallengeVerification: true,
    challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
      input.challenges.set(challenge.token, keyAuthorization);
    },
    challengeRemoveFn: async (_authz, challenge) => {
      input.challenges.remove(challenge.token);
    },
  });
  const info = acme.crypto.readCertificateInfo(cert);
  return { cert, key: key.toString(), notAfter: info.notAfter.toISOString() };
}
