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
# The permission flags come from DATA_DIR and JWKS_FILE as set here (src/cli/compile.ts).
ARG DATA_DIR=/data
ARG JWKS_FILE=/config/jwks.json
RUN DATA_DIR="${DATA_DIR}" JWKS_FILE="${JWKS_FILE}" \
    deno run --no-prompt --allow-env --allow-run src/cli/compile.ts \
      --frozen --output /out/customer-api \
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
RUN deno install --frozen --entrypoint src/main.ts src/cli/start.ts docker/healthcheck.ts
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["deno", "run", "--cached-only", "--no-prompt", "--allow-net=127.0.0.1", "--allow-env=PORT", "docker/healthcheck.ts"]
# The launcher derives the server's permission flags from the environment (DATA_DIR, JWKS_FILE,
# SOCKET) and runs it under them, passing signals on (src/cli/start.ts, src/ops/permissions.ts).
CMD ["deno", "run", "--cached-only", "--no-prompt", "--allow-env", "--allow-run", \
     "src/cli/start.ts", "--cached-only"]
