import { X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';

/** A PEM certificate's subject and validity, or null when the file does not exist. */
export async function readCertificate(
  file: string,
): Promise<{ subject: string; notAfter: string; notBefore: string } | null> {
  let pem: Buffer;
  try {
    pem = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const cert = new X509Certificate(pem);
  return {
    subject: cert.subject.replace(/\n/g, ', '),
    notAfter: new Date(cert.validTo).toISOString(),
    notBefore: new Date(cert.validFrom).toISOString(),
  };
}
