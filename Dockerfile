# Sovra in a container: the official Deno image (pinned to the version Sovra is tested on),
# dependencies fetched once at build time from the lock file, run as the image's non-root
# `deno` user with --cached-only (the container never fetches at start).
FROM denoland/deno:2.9.6

WORKDIR /app
RUN mkdir -p /data && chown deno:deno /app /data

USER deno
COPY --chown=deno:deno deno.json deno.lock ./
COPY --chown=deno:deno main.ts ./
COPY --chown=deno:deno src ./src
COPY --chown=deno:deno catalog ./catalog
# Fails the build if deno.lock does not match deno.json; caches every npm package main.ts needs.
RUN deno install --frozen --entrypoint main.ts

ENV SOVRA_HOST=0.0.0.0 \
    SOVRA_PORT=8080 \
    SOVRA_DASHBOARD_PORT=8081 \
    SOVRA_METRICS_PORT=9464 \
    SOVRA_KV=/data/sovra.kv \
    SOVRA_CATALOG=/app/catalog \
    SOVRA_DRAIN_MS=25000
VOLUME ["/data"]
EXPOSE 8080 8081 9464

# SIGTERM drains (see docs/operations.md); give it SOVRA_DRAIN_MS plus a few seconds.
STOPSIGNAL SIGTERM
ENTRYPOINT ["deno", "run", "--cached-only", "--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", "main.ts"]
