# syntax=docker/dockerfile:1
# sitescan: build with cargo and node, run on slim Debian with chromium-headless-shell as a
# non-root user. The SQLite file lives in the /data volume; set SITESCAN_DATABASE_URL to a
# postgres:// URL to join a fleet.
#
#   docker build -t sitescan .                          # compile in the rust image (the default)
#   cargo build --release --locked --bin sitescan \
#     && mkdir -p target/container \
#     && objcopy --strip-debug target/release/sitescan target/container/sitescan \
#     && docker build --build-arg BINARY=host -t sitescan .   # take target/container/sitescan
#
# BINARY=host needs a host whose glibc is no newer than Debian 12's (Debian 12 itself, or older):
# it is how scripts/container-test.sh builds the image where the rust image cannot be pulled.
# Either way the image users get is the `runtime` stage.
ARG BINARY=build

FROM rust:1-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends protobuf-compiler nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY browser/package.json browser/package-lock.json browser/
WORKDIR /src/browser
RUN npm ci --no-audit --no-fund --ignore-scripts
WORKDIR /src
COPY . .
# Line tables stay out of the image (a quarter of the size); symbols stay in for backtraces.
RUN cargo build --release --locked --bin sitescan \
 && mkdir -p /out \
 && objcopy --strip-debug target/release/sitescan /out/sitescan

FROM scratch AS host
COPY target/container/sitescan /out/sitescan

# hadolint ignore=DL3006
FROM ${BINARY} AS binary

FROM debian:bookworm-slim AS runtime
# tesseract reads images of text (accessibility.image-of-text); curl serves the HEALTHCHECK.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell ca-certificates fonts-liberation curl \
      tesseract-ocr tesseract-ocr-eng \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --uid 10001 sitescan \
 && mkdir -p /data \
 && chown sitescan:sitescan /data
COPY --from=binary /out/sitescan /usr/local/bin/sitescan
USER 10001
WORKDIR /data
VOLUME ["/data"]
# The container is Chromium's sandbox: its own needs user namespaces, which container runtimes'
# default seccomp profiles do not allow a non-root user.
ENV SITESCAN_LISTEN=0.0.0.0:8080 \
    SITESCAN_DATABASE_URL=sqlite:///data/sitescan.db?mode=rwc \
    SITESCAN_CHROMIUM=/usr/lib/chromium/chromium-headless-shell \
    SITESCAN_CHROMIUM_NO_SANDBOX=1 \
    SITESCAN_LOG_FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["curl", "-fsS", "http://127.0.0.1:8080/readyz"]
ENTRYPOINT ["sitescan"]
CMD ["serve"]
