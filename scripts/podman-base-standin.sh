#!/usr/bin/env bash
# Builds a local stand-in for the official denoland/deno:debian-<version> base image, for building
# the Dockerfile where Docker Hub is out of reach (the registry's image is the one to use otherwise):
# Debian minbase with tini, the deno binary of this machine, the `deno` user (uid 1993) and
# DENO_DIR=/deno-dir/, as the official image has them. Run as root; needs debootstrap and podman.
#
#   scripts/podman-base-standin.sh                      # tags localhost/deno-standin:<deno version>
#   podman build --format docker --build-arg DENO_IMAGE=localhost/deno-standin:2.9.6 \
#     -t customer-api .
#
# Settings (environment): DENO_BINARY (default: the deno on PATH), DEBIAN_SUITE (bookworm),
# DEBIAN_MIRROR (default: http://deb.debian.org/debian), STANDIN_TAG (the image tag), and
# EXTRA_CA_BUNDLE: behind a TLS-intercepting proxy, a PEM bundle with its CA (for example
# /etc/ssl/certs/ca-certificates.crt), which the image's deno then trusts through DENO_CERT, so that
# `deno install` in the build reaches the npm registry. The official image has no such setting.
set -euo pipefail

deno_binary=$(readlink -f "${DENO_BINARY:-$(command -v deno)}")
# npm's `deno` package may put a script on PATH; the image needs the ELF binary itself.
if [ "$(head -c 4 "$deno_binary" | od -An -c | tr -d ' ')" != '177ELF' ]; then
  deno_binary=$(dirname "$deno_binary")/deno
fi
version=$("$deno_binary" --version | head -1 | cut -d' ' -f2)
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
tag=${STANDIN_TAG:-localhost/deno-standin:$version}

rootfs=$(mktemp -d /var/tmp/deno-standin.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT

echo "debootstrap $suite from $mirror into $rootfs" >&2
debootstrap --variant=minbase --include=tini "$suite" "$rootfs" "$mirror" >&2
install -m 0755 "$deno_binary" "$rootfs/usr/bin/deno"
ln -s /usr/bin/tini "$rootfs/tini"
chroot "$rootfs" useradd --uid 1993 --user-group deno
install -d -o 1993 -g 1993 "$rootfs/deno-dir"
# Like the official image's entry point: a deno subcommand as the first word runs deno.
cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
set -e
case "$1" in
  bundle | cache | completions | doc | eval | fmt | help | info | install | lint | repl | run | serve | task | test)
    exec deno "$@" ;;
esac
exec "$@"
ENTRY
chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
changes=()
if [ -n "${EXTRA_CA_BUNDLE:-}" ]; then
  install -D -m 0644 "$EXTRA_CA_BUNDLE" "$rootfs/usr/local/share/deno-standin/ca-bundle.crt"
  changes+=(--change 'ENV DENO_CERT=/usr/local/share/deno-standin/ca-bundle.crt')
fi

tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV DENO_DIR=/deno-dir/' \
  --change 'ENV DENO_INSTALL_ROOT=/usr/local' \
  --change "ENV DENO_VERSION=$version" \
  --change 'ENTRYPOINT ["/tini", "--", "docker-entrypoint.sh"]' \
  --change 'CMD ["eval", "console.log(\"Welcome to Deno!\")"]' \
  "${changes[@]}" - "$tag" >&2
echo "$tag"
