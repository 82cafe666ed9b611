/**
 * The deployment recipes stay true (no docker or systemd here, so what the machine allows):
 * the Dockerfile's base image is the Deno version Sovra runs on, it runs as non-root, every
 * file it copies exists, and its build step and start command really work on exactly the files
 * it copies (`deno install --frozen`, then `--cached-only` start and a SIGTERM drain to exit 0);
 * the systemd unit's ExecStart is the same command line; the compose file wires PostgreSQL; every
 * SOVRA_ variable any recipe sets is one the configuration reads.
 */
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { unknownSovraVariables } from "../../src/config.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const dockerfile = await Deno.readTextFile(`${ROOT}Dockerfile`);
const unit = await Deno.readTextFile(`${ROOT}deploy/sovra.service`);
const compose = parseYaml(await Deno.readTextFile(`${ROOT}compose.yaml`)) as {
  services: Record<string, Record<string, unknown>>;
};

/** Dockerfile instructions, continuation lines joined. */
function instructions(text: string): Array<[string, string]> {
  return text.replace(/\\\n/g, " ").split("\n").map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const at = l.indexOf(" ");
      return [l.slice(0, at).toUpperCase(), l.slice(at + 1).trim()] as [string, string];
    });
}
const steps = instructions(dockerfile);
const all = (name: string) => steps.filter(([n]) => n === name).map(([, v]) => v);

function dockerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of all("ENV")) {
    for (const [, k, v] of line.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
  }
  return env;
}

function unitValues(key: string): string[] {
  return unit.split("\n").filter((l) => l.startsWith(`${key}=`)).map((l) =>
    l.slice(key.length + 1)
  );
}

/** Reads a started process's stderr up to "sovra listening" (or its end): its URL, the lines. */
async function listeningUrl(child: Deno.ChildProcess) {
  const lines: string[] = [];
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  let url: string | undefined;
  while (url === undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += value;
    const parts = pending.split("\n");
    pending = parts.pop()!;
    lines.push(...parts);
    const line = lines.find((l) => l.includes('"sovra listening"'));
    if (line) url = String(JSON.parse(line).url);
  }
  if (pending !== "") lines.push(pending);
  return { reader, url, lines };
}

/** The files the image copies (the repository a systemd host holds in /opt/sovra), into `app`. */
function copyImageFiles(app: string) {
  for (const copy of all("COPY")) {
    const parts = copy.split(/\s+/).filter((p) => !p.startsWith("--"));
    const target = parts.at(-1)!;
    for (const source of parts.slice(0, -1)) {
      const to = target.endsWith("/") ? `${app}/${source}` : `${app}/${target}`;
      cpSync(`${ROOT}${source}`, to, { recursive: true });
    }
  }
}

Deno.test("Dockerfile — official Deno image at the version Sovra runs, non-root, files exist", async () => {
  assert.deepEqual(all("FROM"), [`denoland/deno:${Deno.version.deno}`]);
  const users = all("USER");
  assert.equal(users.length, 1);
  assert.ok(!["root", "0"].includes(users[0]!), "runs as non-root");
  for (const copy of all("COPY")) {
    const parts = copy.split(/\s+/).filter((p) => !p.startsWith("--"));
    for (const source of parts.slice(0, -1)) {
      await Deno.stat(`${ROOT}${source}`); // throws when a copied file is missing
    }
  }
  assert.ok(all("RUN").some((r) => /deno install --frozen\b/.test(r)), "deps fetched at build");
  const entry = JSON.parse(all("ENTRYPOINT")[0]!) as string[];
  assert.ok(entry.includes("--cached-only"), "never fetches at start");
  assert.deepEqual(unknownSovraVariables(dockerEnv()), []);
});

Deno.test("Dockerfile + systemd — the build step and the start command work on the copied files", async () => {
  // Exactly what the image holds, in a fresh directory.
  await using tmp = await tempDir({ prefix: "sovra-image-" });
  const app = tmp.path;
  copyImageFiles(app);
  const build = all("RUN").find((r) => r.startsWith("deno install"))!.split(/\s+/);
  const built = await new Deno.Command(Deno.execPath(), { args: build.slice(1), cwd: app })
    .output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));

  const docker = JSON.parse(all("ENTRYPOINT")[0]!) as string[];
  const execStart = unitValues("ExecStart")[0]!.split(/\s+/);
  assert.match(execStart[0]!, /^\/.*\/deno$/, "ExecStart names deno by an absolute path");
  assert.deepEqual(execStart.slice(1), docker.slice(1), "systemd runs what the image runs");

  const child = new Deno.Command(Deno.execPath(), {
    args: docker.slice(1),
    cwd: app,
    env: {
      ...dockerEnv(),
      SOVRA_HOST: "127.0.0.1",
      SOVRA_PORT: "0",
      SOVRA_DASHBOARD_PORT: "0",
      SOVRA_METRICS_PORT: "0",
      SOVRA_KV: `${app}/data/sovra.kv`,
      SOVRA_CATALOG: `${app}/catalog`,
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const { reader, url, lines } = await listeningUrl(child);
  assert.ok(url, lines.join("\n"));
  child.kill("SIGTERM");
  while (!(await reader.read()).done) { /* drain stderr */ }
  assert.equal((await child.status).code, 0, "a SIGTERM drain exits 0");
});

Deno.test("systemd unit — drains within TimeoutStopSec, reloads with SIGHUP, known variables", () => {
  const env: Record<string, string> = {};
  for (const line of unitValues("Environment")) {
    const [k, v] = line.split("=", 2);
    env[k!] = v!;
  }
  assert.deepEqual(unknownSovraVariables(env), []);
  assert.equal(unitValues("KillSignal")[0], "SIGTERM");
  assert.ok(Number(unitValues("TimeoutStopSec")[0]) * 1000 > Number(env.SOVRA_DRAIN_MS));
  assert.match(unitValues("ExecReload")[0]!, /kill -HUP \$MAINPID/);
  assert.notEqual(unitValues("User")[0], "root");
});

Deno.test("compose — Sovra on PostgreSQL behind the nginx recipe, metrics on loopback, grace longer than the drain", () => {
  const { postgres, sovra, proxy } = compose.services;
  assert.ok(postgres && sovra && proxy);
  assert.equal(sovra.build, ".");
  const env = sovra.environment as Record<string, string>;
  assert.deepEqual(unknownSovraVariables(env), []);
  const db = new URL(env.SOVRA_DATABASE_URL!);
  assert.equal(db.protocol, "postgres:");
  assert.equal(db.hostname, "postgres", "the database is the compose service");
  const pgEnv = postgres.environment as Record<string, string>;
  assert.equal(db.username, pgEnv.POSTGRES_USER);
  assert.equal(db.pathname, `/${pgEnv.POSTGRES_DB}`);
  assert.deepEqual(sovra.depends_on, { postgres: { condition: "service_healthy" } });
  // Only the proxy publishes ports: no client reaches Sovra without the proxy's limits.
  assert.equal(sovra.ports, undefined);
  assert.ok((proxy.ports as string[]).includes(`127.0.0.1:${env.SOVRA_METRICS_PORT}:9464`));
  assert.ok((proxy.volumes as string[]).includes("./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"));
  assert.ok((proxy.ports as string[]).includes(`${env.SOVRA_PORT ?? "8080"}:8080`));
  const grace = Number(String(sovra.stop_grace_period).replace(/s$/, ""));
  assert.ok(grace * 1000 > Number(env.SOVRA_DRAIN_MS));
});

/** Whether this machine lets root make a private mount namespace (`unshare -m`). */
async function canUnshare(): Promise<boolean> {
  try {
    const out = await new Deno.Command("unshare", {
      args: ["--mount", "--propagation", "private", "true"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}
const unshareOk = await canUnshare();
if (!unshareOk) console.warn("systemd sandbox test skipped: unshare -m is not permitted here");

Deno.test({
  name:
    "systemd unit — starts from its own cache as written, under its sandbox (ProtectHome, ProtectSystem, PrivateTmp, User, NoNewPrivileges)",
  ignore: !unshareOk,
  fn: async () => {
    await using tmp = await tempDir({ prefix: "sovra-unit-" });
    const app = `${tmp.path}/app`;
    const cache = `${tmp.path}/cache`;
    await Deno.mkdir(app);
    await Deno.mkdir(cache);
    copyImageFiles(app);
    const env: Record<string, string> = {};
    for (const line of unitValues("Environment")) {
      const [k, v] = line.split("=", 2);
      env[k!] = v!;
    }
    const denoDir = env.DENO_DIR ?? "";
    assert.ok(
      denoDir?.startsWith("/var/cache/sovra/"),
      "DENO_DIR inside the unit's CacheDirectory",
    );
    assert.equal(unitValues("CacheDirectory")[0], "sovra");
    assert.equal(unitValues("WorkingDirectory")[0], "/opt/sovra");
    assert.equal(unitValues("ProtectHome")[0], "yes");
    // The unit's install step, as its header says, into what becomes /var/cache/sovra. The
    // packages come from this machine's cache, hard-linked (the step itself needs no network).
    const hostDir = JSON.parse(new TextDecoder().decode(
      (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output()).stdout,
    )).denoDir as string;
    const cacheDenoDir = `${cache}/${denoDir.slice("/var/cache/sovra/".length)}`;
    await Deno.mkdir(cacheDenoDir, { recursive: true });
    const linked = await new Deno.Command("cp", { args: ["-al", `${hostDir}/npm`, cacheDenoDir] })
      .output();
    assert.ok(linked.success, new TextDecoder().decode(linked.stderr));
    const installed = await new Deno.Command(Deno.execPath(), {
      args: ["install", "--frozen", "--entrypoint", `${app}/main.ts`],
      cwd: app,
      env: { DENO_DIR: cacheDenoDir },
    }).output();
    assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
    // The service user (nobody here) owns its cache and state, as systemd makes it.
    await new Deno.Command("chown", { args: ["-R", "65534:65534", app, cache] }).output();
    await new Deno.Command("find", {
      args: [cacheDenoDir, "-type", "d", "-exec", "chmod", "777", "{}", "+"],
    }).output();

    const execStart = unitValues("ExecStart")[0]!;
    const assignments = Object.entries({
      ...env,
      // Ports of this test (the unit's 8080/8081/9464 may be taken here).
      SOVRA_PORT: "0",
      SOVRA_DASHBOARD_PORT: "0",
      SOVRA_METRICS_PORT: "0",
      HOME: "/nonexistent",
      PATH: "/usr/local/bin:/usr/bin:/bin",
      NO_COLOR: "1",
    }).map(([k, v]) => `${k}='${v}'`).join(" ");
    // What systemd sets up for this unit, in a private mount namespace; then ExecStart exactly.
    const script = [
      "set -e",
      "mount -t tmpfs tmpfs /opt && mkdir /opt/sovra",
      `mount --bind '${app}' /opt/sovra`,
      "mount -t tmpfs tmpfs /usr/local/bin && touch /usr/local/bin/deno",
      `mount --bind '${Deno.execPath()}' /usr/local/bin/deno`,
      // StateDirectory=sovra, CacheDirectory=sovra.
      "mount -t tmpfs tmpfs /var/lib && mkdir -m 700 /var/lib/sovra && chown 65534:65534 /var/lib/sovra",
      "mount -t tmpfs tmpfs /var/cache && mkdir /var/cache/sovra",
      `mount --bind '${cache}' /var/cache/sovra`,
      // ProtectHome=yes: no home directory (this machine's Deno cache included) is visible.
      "for d in /root /home /run/user; do if [ -d $d ]; then mount -t tmpfs -o mode=000 tmpfs $d; fi; done",
      // PrivateTmp=yes.
      "mount -t tmpfs -o mode=1777 tmpfs /tmp",
      // ProtectSystem=strict: the rest read-only.
      "mount --bind / / && mount -o remount,bind,ro /",
      "cd /opt/sovra",
      // User=sovra (nobody), NoNewPrivileges=yes, the unit's environment only.
      `exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs env -i ${assignments} ${execStart}`,
    ].join("\n");
    const child = new Deno.Command("unshare", {
      args: ["--mount", "--propagation", "private", "sh", "-c", script],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const { reader, url, lines } = await listeningUrl(child);
    try {
      assert.ok(url, `the unit started:\n${lines.join("\n")}`);
      const health = await fetch(`${url}/healthz`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      try {
        child.kill("SIGTERM");
      } catch { /* exited */ }
      while (!(await reader.read()).done) { /* drain stderr */ }
    }
    assert.equal((await child.status).code, 0, "a SIGTERM drain exits 0");
  },
});
