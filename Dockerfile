# customer-api container image. Build and run (see docs/operations.md, "Container"):
#   docker build -t customer-api .
#   podman build --format docker -t customer-api .    (the docker format keeps the HEALTHCHECK)
#   docker run -p 8000:8000 -v customer-api-data:/data --env-file customer-api.env customer-api
# A standalone `deno compile` binary on distroless instead: docker build --target binary .
# No `syntax` parser directive: BuildKit would fetch a frontend image for it, which fails offline.
#
# Build arguments:
#   DENO_IMAGE         the base image (default below); for an offline build, an image already on
#                      the machine (scripts/podman-base-standin.sh builds a stand-in for Podman)
#   BINARY_BASE_IMAGE  the base of the `binary` target
#   DENORT_BIN         `--target binary` only: a denort binary inside the build context, e.g.
#                      --build-arg DENORT_BIN=dist/denort (.dockerignore lets dist/denort in), so
#                      that `deno compile` does not download it
#
# The base image is pinned to the Deno version CI uses (.ci/run, DENO_VERSION). For a
# reproducible build, pin it by digest as well; look the digest up where the registry is reachable
#   docker buildx imagetools inspect denoland/deno:debian-2.9.6
# and pass it: --build-arg DENO_IMAGE=denoland/deno:debian-2.9.6@sha256:<digest>
# (no digest is written here because none could be verified when this file was written).
ARG DENO_IMAGE=denoland/deno:debian-2.9.6
ARG BINARY_BASE_IMAGE=gcr.io/distroless/cc-debian12:nonroot

# ---------------------------------------------------------------------------------------------
# compile: a standalone binary. Needs network at build time: `deno compile` downloads `denort`,
# unless the DENORT_BIN build argument names a copy in the build context. Built only for
# `--target binary`.
FROM ${DENO_IMAGE} AS compile
# No default: unset, it stays out of the environment and `deno compile` downloads denort.
ARG DENORT_BIN
WORKDIR /build
COPY deno.json deno.lock ./
# DENORT_BIN lands at the same path under /build, where `deno compile` (run in /build, with the
# build argument in its environment) finds it. Without it, deno.lock is copied again: a no-op.
COPY ${DENORT_BIN:-deno.lock} ./${DENORT_BIN:-deno.lock}
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
# It runs without the launcher, so nothing raises its open-file limit: set the soft limit itself
# (`docker run --ulimit nofile=65536:65536`); it logs no limit, since it cannot read its own.
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
# Through sh only to add the SOCKET path to the permissions when SOCKET is set (sidecar mode);
# `set -f; IFS=` keeps a path with spaces or wildcards one argument.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["sh", "-c", "set -f; IFS=; exec deno run --cached-only --no-prompt --allow-env=PORT,SOCKET --allow-net=127.0.0.1${SOCKET:+,unix:$SOCKET} ${SOCKET:+--allow-read=$SOCKET} ${SOCKET:+--allow-write=$SOCKET} docker/healthcheck.ts"]
# The launcher derives the server's permission flags from the environment (DATA_DIR, JWKS_FILE,
# SOCKET) and runs it under them, passing signals on (src/cli/start.ts, src/ops/permissions.ts).
# It raises the server's soft open-file limit to the hard one; the server warns below 8192: raise
# the hard limit with `docker run --ulimit nofile=65536:65536`.
CMD ["deno", "run", "--cached-only", "--no-prompt", "--allow-env", "--allow-run", \
     "src/cli/start.ts", "--cached-only"]
