import nodemailer, { type Transporter } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
}

/** Sends mail to the team; `null` when no SMTP server is configured (the store and the log still have it). */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export function createMailer(smtpUrl: string | undefined, from: string): Mailer | null {
  if (!smtpUrl) return null;
  const transport: Transporter = nodemailer.createTransport(smtpUrl);
  return {
    send: async (mail) => {
      await transport.sendMail({ from, ...mail });
    },
    close: () => transport.close(),
  };
}
