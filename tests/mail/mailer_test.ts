/**
 * Outgoing mail: `SOVRA_SMTP_URL` / `SOVRA_SMTP_FROM` as the configuration reads them, and the
 * mailer delivering to a real SMTP server on 127.0.0.1 with the URL's credentials.
 */
import assert from "node:assert/strict";
import { ConfigError, configFromEnv } from "../../src/config.ts";
import { smtpMailer } from "../../src/mail/mailer.ts";
import { startSmtpCapture } from "../helpers/smtp_server.ts";

Deno.test("config — SOVRA_SMTP_URL and SOVRA_SMTP_FROM go together; bad values are refused without the password", () => {
  assert.equal(configFromEnv({}).smtp, undefined);
  assert.deepEqual(
    configFromEnv({
      SOVRA_SMTP_URL: "smtps://mailer:s3cret@smtp.example.eu:465",
      SOVRA_SMTP_FROM: "Sovra <noreply@example.eu>",
    }).smtp,
    { url: "smtps://mailer:s3cret@smtp.example.eu:465", from: "Sovra <noreply@example.eu>" },
  );
  const refused = (env: Record<string, string>, pattern: RegExp) => {
    assert.throws(() => configFromEnv(env), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, pattern);
      assert.doesNotMatch(e.message, /s3cret/);
      return true;
    });
  };
  refused({ SOVRA_SMTP_URL: "smtp://u:s3cret@h:25" }, /SOVRA_SMTP_FROM must name/);
  refused({ SOVRA_SMTP_FROM: "noreply@example.eu" }, /SOVRA_SMTP_URL is not/);
  refused(
    { SOVRA_SMTP_URL: "http://u:s3cret@h", SOVRA_SMTP_FROM: "a@b.eu" },
    /smtp:\/\/user:password@host/,
  );
  refused(
    { SOVRA_SMTP_URL: "smtp://u:s3cret@h:25", SOVRA_SMTP_FROM: "not an address" },
    /SOVRA_SMTP_FROM must be an e-mail address/,
  );
});

Deno.test("mailer — delivers to a real SMTP server with the URL's credentials and the sender", async () => {
  await using smtp = await startSmtpCapture();
  const mailer = smtpMailer({ url: smtp.url, from: "Sovra <noreply@sovra.test>" });
  try {
    await mailer.send({
      to: "bob@example.eu",
      subject: "Réinitialiser",
      text: "Link: http://127.0.0.1/x?token=abc",
    });
    const mail = await smtp.waitForMail(() => true);
    assert.deepEqual(mail.to, ["bob@example.eu"]);
    assert.equal(mail.from, "noreply@sovra.test");
    assert.equal(mail.subject, "Réinitialiser");
    assert.match(mail.text, /token=abc/);
    assert.equal(mail.user, "sovra");
  } finally {
    mailer.close();
  }
  // Wrong credentials: the server refuses, and so does the send.
  const wrong = smtpMailer({
    url: smtp.url.replace("smtp-test-secret", "wrong"),
    from: "noreply@sovra.test",
  });
  try {
    await assert.rejects(() => wrong.send({ to: "bob@example.eu", subject: "x", text: "y" }));
  } finally {
    wrong.close();
  }
  assert.equal(smtp.mails.length, 1);
});
