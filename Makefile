# `make bench`: the benchmark suite (bench/), side by side with Lighthouse, pa11y and bare
# Chromium. Not part of the tests: `cargo test` / `.ci/run` never build or run it.
#
#   make bench                          # everything (about 30-60 min on 2 cores)
#   make bench BENCH_ARGS="--only throughput,fidelity --sample 4"
#   make bench BENCH_ARGS="--api-findings 1000,100000"   # a smaller API table
#
# Builds sitescan and the bench in release, installs the peers into bench/peers/ (ignored by
# git), starts the local PostgreSQL when it is installed but down, and writes
# bench/results-<timestamp>.json.

CARGO_TARGET_DIR ?= $(CURDIR)/target
export CARGO_TARGET_DIR
BENCH_ARGS ?=
PEERS := bench/peers

.PHONY: bench bench-build bench-peers bench-act bench-contrast bench-scale bench-real bench-audit bench-ocr container-test

bench: bench-build bench-peers
	-bash scripts/services.sh
	$(CARGO_TARGET_DIR)/release/sitescan-bench --sitescan $(CARGO_TARGET_DIR)/release/sitescan --peers $(PEERS) $(BENCH_ARGS)

# The W3C ACT rules benchmark (bench/act/act.mjs): sitescan and axe-core on the ACT test cases of
# ../shared/act-rules/, served on 127.0.0.1, in one run. Needs only the sitescan binary and Node.
#   make bench-act                                   # release build
#   make bench-act ACT_ARGS="--rules b4f0c3,2t702h"  # some rules; --sitescan BIN for another build
ACT_ARGS ?=
bench-act:
	cargo build --release --bin sitescan
	node --experimental-websocket bench/act/act.mjs --sitescan $(CARGO_TARGET_DIR)/release/sitescan $(ACT_ARGS)

# A lean text-contrast pass of our own (bench/act/lean-contrast.js) against axe-core's
# color-contrast rule (bench/act/contrast.mjs): time and verdicts, element by element, on the ACT
# contrast cases, our edge cases (bench/act/contrast-edges/) and both bench sites. Not part of a scan.
#   make bench-contrast CONTRAST_ARGS="--pages 30"
CONTRAST_ARGS ?=
bench-contrast:
	cargo build --release --manifest-path bench/Cargo.toml
	node --experimental-websocket bench/act/contrast.mjs --bench $(CARGO_TARGET_DIR)/release/sitescan-bench $(CONTRAST_ARGS)

# A fleet on PostgreSQL, by simulation (bench/scale/): the planners against N sites (the 3 a.m.
# rush, a one-hour outage's catch-up, an idle tick), the list endpoints over F findings, the
# monitor and webhook rates, and how late queued scans start for W worker loops. Drops and
# recreates the database `sitescan_scale` on the local server.
#   make bench-scale SCALE_ARGS="--sites 10000,100000 --planners 2"
#   make bench-scale SCALE_ARGS="--findings 10000,10000000"
#   make bench-scale SCALE_ARGS="--monitors 2000 --webhooks 2000 --latency-ms 50"
#   make bench-scale SCALE_ARGS="--queue 2000 --workers 10,40 --pages 5 --page-ms 400 --page-findings 10"
SCALE_ARGS ?= --sites 10000,100000 --planners 2
bench-scale:
	-bash scripts/services.sh
	cargo run --release --example scale -- $(SCALE_ARGS)

# Saved real pages (bench/real/): one-page scans of about 200 pages of two public collections, served
# on 127.0.0.1 with their outside hosts unreachable. The pages are rebuilt from the collections'
# snapshots (git directories) named by REAL_POSTLIGHT and REAL_SCRAPINGHUB; see bench/real/corpus.py.
#   make bench-real REAL_POSTLIGHT=/path/parser.git REAL_SCRAPINGHUB=/path/benchmark.git
REAL_ARGS ?=
bench-real:
	cargo build --release --bin sitescan
	@if [ ! -d bench/real/pages ]; then python3 bench/real/corpus.py --postlight "$(REAL_POSTLIGHT)" --scrapinghub "$(REAL_SCRAPINGHUB)" --out bench/real/pages; fi
	python3 bench/real/run.py --sitescan $(CARGO_TARGET_DIR)/release/sitescan --pages bench/real/pages $(REAL_ARGS)

# The GDS accessibility tool audit (142 pages, one barrier each), from a checkout or a fetched git
# directory of alphagov/accessibility-tool-audit:
#   make bench-audit AUDIT=/path/accessibility-tool-audit [AUDIT_ARGS="--level AAA"]
AUDIT_ARGS ?=
bench-audit:
	cargo build --release --bin sitescan
	python3 bench/audit/run.py --sitescan $(CARGO_TARGET_DIR)/release/sitescan --audit "$(AUDIT)" $(AUDIT_ARGS)

bench-build:
	bash scripts/setup.sh
	cargo build --release --bin sitescan
	cargo build --release --manifest-path bench/Cargo.toml

bench-peers: $(PEERS)/node_modules/.installed
	cp bench/node/*.mjs $(PEERS)/

$(PEERS)/node_modules/.installed: bench/node/package.json bench/node/package-lock.json
	mkdir -p $(PEERS)
	cp bench/node/package.json bench/node/package-lock.json $(PEERS)/
	cd $(PEERS) && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund
	touch $@

# The text-in-images prefilter (bench/ocr/looks.py): each page scanned with --ocr, by default and
# with --no-ocr; images the default passes over although --ocr finds words in them, and seconds a page.
#   make bench-ocr OCR_ARGS="--dir ACT=../shared/act-rules --match testcases/0va7u6/"
OCR_ARGS ?= --dir ACT=../shared/act-rules --match testcases/0va7u6/
bench-ocr:
	cargo build --release --bin sitescan
	python3 bench/ocr/looks.py --sitescan $(CARGO_TARGET_DIR)/release/sitescan $(OCR_ARGS)

# The container image, built and run with no registry and no Docker engine
# (scripts/container-test.sh: mmdebstrap base, buildah, checks inside the image). Needs root.
container-test:
	bash scripts/container-test.sh
