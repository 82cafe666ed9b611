/**
 * Outgoing e-mail: one small interface (`Mailer`) over nodemailer's SMTP transport, so any
 * feature that mails someone (password-reset links today) takes a `Mailer` and never sees
 * SMTP. `SOVRA_SMTP_URL` is nodemailer's connection URL: `smtp://` upgrades with STARTTLS when
 * the server offers it (`?requireTLS=true` refuses a server that does not), `smtps://` speaks
 * TLS from the first byte. Messages are plain text: a link in them is all they carry.
 */
import nodemailer from "nodemailer";
import type { SmtpConfig } from "../config.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Hands the message to the SMTP server; rejects when the server does not accept it. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Timeouts shorter than nodemailer's defaults (2 min to connect): a mail server that does not
 * answer must not hold a request's background work for minutes. The URL may set its own.
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function smtpMailer(config: SmtpConfig): Mailer {
  const transport = nodemailer.createTransport({ url: config.url, ...TIMEOUTS }, {
    from: config.from,
  });
  return {
    async send(message) {
      const info = await transport.sendMail({
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
      if (info.rejected.length > 0) {
        throw new Error(`The mail server refused the recipient (${info.response}).`);
      }
    },
    close: () => transport.close(),
  };
}

/** The configured mailer, or undefined when Sovra sends no e-mail (no `SOVRA_SMTP_URL`). */
export function mailerFor(config: { smtp: SmtpConfig | undefined }): Mailer | undefined {
  return config.smtp ? smtpMailer(config.smtp) : undefined;
}
