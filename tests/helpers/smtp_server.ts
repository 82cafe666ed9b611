/**
 * A real SMTP server for the tests: `smtp-server` (from the nodemailer project) on 127.0.0.1,
 * port 0, requiring AUTH PLAIN/LOGIN with a user and password (plain text allowed on loopback,
 * no STARTTLS), keeping every accepted message parsed by `mailparser`. `waitForMail` waits for a
 * message to arrive (no fixed sleep). Both packages are npm dependencies fetched by Deno; nothing
 * to install.
 */
import { SMTPServer } from "smtp-server";
import { simpleParser } from "mailparser";
import { Buffer } from "node:buffer";

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The AUTH user the client signed in with. */
  user: string;
}

/** The parts of `smtp-server`'s and `mailparser`'s API used here (they ship no types). */
interface SmtpServerLike {
  listen(port: number, host: string, done: () => void): void;
  close(done: () => void): void;
  server: { address(): { port: number } };
}
interface Session {
  user?: string;
  envelope: { mailFrom: { address: string } | false; rcptTo: Array<{ address: string }> };
}
type Parse = (raw: Buffer) => Promise<{ subject?: string; text?: string }>;

export interface SmtpCapture extends AsyncDisposable {
  /** `smtp://user:pass@127.0.0.1:port` for `SOVRA_SMTP_URL`. */
  url: string;
  mails: CapturedMail[];
  /** Resolves with the first message (from the start) that `match` accepts. */
  waitForMail(match: (m: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

export async function startSmtpCapture(
  credentials = { user: "sovra", pass: "smtp-test-secret" },
): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const waiters = new Set<() => void>();
  const parse = simpleParser as unknown as Parse;
  const Server = SMTPServer as unknown as new (options: unknown) => SmtpServerLike;
  const server = new Server({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(
      auth: { username: string; password: string },
      _session: Session,
      done: (error: Error | null, result?: { user: string }) => void,
    ) {
      if (auth.username === credentials.user && auth.password === credentials.pass) {
        done(null, { user: auth.username });
      } else done(new Error("Invalid username or password"));
    },
    onData(
      stream: AsyncIterable<Uint8Array>,
      session: Session,
      done: (error?: Error | null) => void,
    ) {
      (async () => {
        const chunks: Uint8Array[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        const parsed = await parse(Buffer.concat(chunks));
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: parsed.subject ?? "",
          text: parsed.text ?? "",
          user: session.user ?? "",
        });
        for (const wake of waiters) wake();
      })().then(() => done(), (error) => done(error as Error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.server.address().port;
  const close = () => new Promise<void>((resolve) => server.close(resolve));
  return {
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`,
    mails,
    waitForMail(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = mails.find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`No matching mail within ${timeoutMs} ms (${mails.length} received).`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The first `http(s)://…` link of a mail's text. */
export function linkIn(mail: CapturedMail): URL {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (!match) throw new Error(`No link in the mail: ${mail.text}`);
  return new URL(match[0]);
}
