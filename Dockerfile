# syntax=docker/dockerfile:1
# sitescan: build with cargo and node, run on slim Debian with chromium-headless-shell as a
# non-root user. The SQLite file lives in the /data volume; set SITESCAN_DATABASE_URL to a
# postgres:// URL to join a fleet.

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
RUN cargo build --release --locked --bin sitescan

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell ca-certificates fonts-liberation curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --uid 10001 sitescan \
 && mkdir -p /data \
 && chown sitescan:sitescan /data
COPY --from=build /src/target/release/sitescan /usr/local/bin/sitescan
USER 10001
WORKDIR /data
VOLUME ["/data"]
ENV SITESCAN_LISTEN=0.0.0.0:8080 \
    SITESCAN_DATABASE_URL=sqlite:///data/sitescan.db?mode=rwc \
    SITESCAN_CHROMIUM=/usr/lib/chromium/chromium-headless-shell \
    SITESCAN_LOG_FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["curl", "-fsS", "http://127.0.0.1:8080/readyz"]
ENTRYPOINT ["sitescan"]
CMD ["serve"]
