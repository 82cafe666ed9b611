/**
 * Debian's Chromium for the browser tests, driven by `playwright-core` (never a browser
 * download). When it is missing, it is installed from Debian's packages
 * (`apt-get update && apt-get install -y chromium`), saying so on stderr.
 */
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

async function run(args: string[]): Promise<void> {
  const out = await new Deno.Command(args[0]!, {
    args: args.slice(1),
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).slice(-500)}`,
    );
  }
}

let installing: Promise<void> | undefined;

/** Installs Debian's chromium package when the browser is missing. */
export function ensureChromium(): Promise<void> {
  installing ??= (async () => {
    if (await exists(CHROMIUM_PATH)) return;
    console.error(
      `Chromium is missing at ${CHROMIUM_PATH}: installing Debian's package (apt-get update && apt-get install -y chromium)…`,
    );
    await run(["apt-get", "update", "-q"]);
    await run(["apt-get", "install", "-y", "-q", "chromium"]);
    if (!await exists(CHROMIUM_PATH)) {
      throw new Error(`Chromium still missing at ${CHROMIUM_PATH}.`);
    }
  })();
  return installing;
}

export async function launchChromium(): Promise<Browser> {
  await ensureChromium();
  return await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** The page's console errors and uncaught exceptions (a CSP violation is one), as they come. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}
