# syntax=docker/dockerfile:1
# customer-api container image. Build and run (see the README, "Container"):
#   docker build -t customer-api .
#   docker run -p 8000:8000 -v customer-api-data:/data --env-file customer-api.env customer-api
# A standalone `deno compile` binary on distroless instead: docker build --target binary .
#
# The base image is pinned to the Deno version CI uses (.ci/run, DENO_VERSION). For a
# reproducible build, pin it by digest as well; look the digest up where the registry is reachable
#   docker buildx imagetools inspect denoland/deno:debian-2.9.6
# and pass it: --build-arg DENO_IMAGE=denoland/deno:debian-2.9.6@sha256:<digest>
# (no digest is written here because none could be verified when this file was written).
ARG DENO_IMAGE=denoland/deno:debian-2.9.6
ARG BINARY_BASE_IMAGE=gcr.io/distroless/cc-debian12:nonroot

# ---------------------------------------------------------------------------------------------
# compile: a standalone binary. Needs network at build time: `deno compile` downloads `denort`
# (or set DENORT_BIN to a local copy). Built only for `--target binary`.
FROM ${DENO_IMAGE} AS compile
WORKDIR /build
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY src/ src/
# The same permission flags as the `app` stage (tests/permissions_test.ts checks them).
RUN deno compile --frozen --output /out/customer-api \
      --no-prompt \
      --allow-net \
      --allow-env=PORT,HOST,SOCKET,SOCKET_MODE,PUBLIC_URL,DATA_DIR,JWT_SECRET,JWKS_FILE,JWKS_URL,JWKS_COOLDOWN_SECONDS,JWT_ISSUER,JWT_AUDIENCE,MAX_BODY_BYTES,SNAPSHOT_EVERY,ERASE_WITHIN_SECONDS,SEGMENT_MAX_BYTES,LOG_LEVEL,RATE_LIMIT,RATE_LIMIT_BURST,CORS_ORIGINS \
      --allow-read=/data,/config \
      --allow-write=/data \
      src/main.ts \
  && mkdir -p /out/data

# binary: the compiled server on distroless (no shell, no package manager), user nonroot (65532).
# It has no HEALTHCHECK: there is no client to run one; probe /healthz and /readyz from outside.
FROM ${BINARY_BASE_IMAGE} AS binary
ENV HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data
COPY --from=compile /out/customer-api /usr/local/bin/customer-api
COPY --from=compile --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME ["/data"]
EXPOSE 8000
ENTRYPOINT ["/usr/local/bin/customer-api"]

# ---------------------------------------------------------------------------------------------
# app (the default target): the server on the official Deno image, as the non-root `deno` user.
FROM ${DENO_IMAGE} AS app
ENV HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data \
    DENO_NO_UPDATE_CHECK=1
WORKDIR /app
# /data is the volume the server writes; /config is where a JWKS_FILE is mounted, read-only.
RUN mkdir -p /data /config \
  && chown deno:deno /data \
  && chmod 0700 /data
# The code stays owned by root, so the server cannot change it; the module cache is deno's.
USER deno
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY src/ src/
COPY docker/healthcheck.ts docker/
RUN deno install --frozen --entrypoint src/main.ts docker/healthcheck.ts
VOLUME ["/data"]
EXPOSE 8000
# Through sh only to add the SOCKET path to the permissions when SOCKET is set (sidecar mode);
# `set -f; IFS=` keeps a path with spaces or wildcards one argument.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["sh", "-c", "set -f; IFS=; exec deno run --cached-only --no-prompt --allow-env=PORT,SOCKET --allow-net=127.0.0.1${SOCKET:+,unix:$SOCKET} ${SOCKET:+--allow-read=$SOCKET} ${SOCKET:+--allow-write=$SOCKET} docker/healthcheck.ts"]
# The permission flags are exactly those of `deno task start` and of the end-to-end tests, with
# /data and /config for ./data and ./config (src/ops/permissions.ts; tests/ops/permissions_test.ts).
CMD ["deno", "run", "--cached-only", \
     "--no-prompt", \
     "--allow-net", \
     "--allow-env=PORT,HOST,SOCKET,SOCKET_MODE,PUBLIC_URL,DATA_DIR,JWT_SECRET,JWKS_FILE,JWKS_URL,JWKS_COOLDOWN_SECONDS,JWT_ISSUER,JWT_AUDIENCE,MAX_BODY_BYTES,SNAPSHOT_EVERY,ERASE_WITHIN_SECONDS,SEGMENT_MAX_BYTES,LOG_LEVEL,RATE_LIMIT,RATE_LIMIT_BURST,CORS_ORIGINS", \
     "--allow-read=/data,/config", \
     "--allow-write=/data", \
     "src/main.ts"]
