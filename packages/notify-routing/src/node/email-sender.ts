import type { EmailDelivery } from '../core/delivery-request.ts';
import type { SendResult } from './http-sender.ts';

const MAX_ERROR_LENGTH = 200;

/** Send one e-mail over SMTP with nodemailer (STARTTLS required or skipped as configured). */
export async function sendEmail(request: EmailDelivery, timeoutMs: number): Promise<SendResult> {
  // Loaded on the first e-mail, not at the service's start (docs/decisions/performance.md).
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: request.host,
    port: request.port,
    secure: request.secure,
    requireTLS: !request.secure && request.startTls,
    ignoreTLS: !request.secure && !request.startTls,
    ...(request.auth ? { auth: { user: request.auth.user, pass: request.auth.pass } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    await Promise.race([
      transport.sendMail({
        from: request.from,
        to: request.to,
        subject: request.subject,
        text: request.text,
      }),
      timeout,
    ]);
    return { success: true };
  } catch (error) {
    return { success: false, error: describeSmtpError(error, request) };
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

function describeSmtpError(error: unknown, request: EmailDelivery): string {
  let text = error instanceof Error ? error.message : 'the SMTP server refused the message';
  // nodemailer never echoes the password, but make sure of it.
  if (request.auth?.pass) text = text.split(request.auth.pass).join('***');
  text = `SMTP: ${text.replace(/\s+/g, ' ').trim()}`;
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
