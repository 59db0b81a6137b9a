#!/usr/bin/env python3
"""`make bench-audit`: the GDS accessibility tool audit (alphagov/accessibility-tool-audit, MIT):
142 pages, each with one barrier, scanned one page at a time on 127.0.0.1.

A barrier counts as found when the scan reports a finding on its page (and on the example page it
links to, where the barrier is a whole page: a missing title, a missing lang) that the audit's own
barrier-free page (the same template with a plain paragraph, built here) does not get: a check id
and selector pair that is new, among the checks that judge accessibility (not broken links, failed
requests, performance or search, which the audit's pages trip by linking to pages that are not
there). That is still a generous proxy for "the tool names this barrier" (a finding caused by the
barrier's markup but about something else counts too), so the list of found barriers with their
check ids is printed for a reader to judge, and the misses by category.

  python3 bench/audit/run.py --sitescan target/release/sitescan --audit /path/to/accessibility-tool-audit [--level AA]
"""
import argparse
import collections
import concurrent.futures
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

BASELINE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Accessibility tools audit test - Baseline - GDS accessibility team</title>
  <script src="../assets/javascript/jquery-1.12.0.min.js"></script>
  <script src="../assets/javascript/main.js"></script>
  <link rel="stylesheet" href="../assets/stylesheets/tests.css" />
</head>
<body>
  <h1>Baseline</h1>
  <main>
    <p>Nothing here is a barrier.</p>
  </main>
</body>
</html>
"""


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=directory)
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def scan(binary, url, level):
    flags = ['--level', level] if level else []
    out = subprocess.run(
        [binary, 'scan', url, '--max-pages', '1', '--format', 'json', '--allow-target', '127.0.0.1/32', '--quiet', '--allow-incomplete', *flags],
        capture_output=True, timeout=300,
    )
    try:
        body = json.loads(out.stdout)
    except ValueError:
        return None
    return body.get('report', {}).get('findings', [])


# Checks that say nothing about a barrier to people (the audit's pages link to pages that do not
# exist, load media from hosts that are not there and leave out image sizes throughout).
NOT_ACCESSIBILITY = ('crawlability.', 'runtime.', 'performance.', 'structured-data.', 'search.description', 'search.canonical',
                     'search.og', 'search.twitter', 'media.image-missing-dimensions', 'media.image-legacy-format',
                     'media.image-not-lazy', 'media.image-oversized', 'media.image-broken', 'forms.submit-missing',
                     'forms.autocomplete-missing', 'search.link-text-generic', 'search.title-length')
EXAMPLE = re.compile(r'href="\.\./(example-pages/[^"#?]+\.html)"')


def keys(findings):
    return {(f['check_id'], (f.get('evidence') or {}).get('selector') or '') for f in findings
            if not f['check_id'].startswith(NOT_ACCESSIBILITY)}


def scan_case(binary, root, base, page, level):
    """The findings of a test page, and of the example page it links to (if any)."""
    findings = scan(binary, base + 'tests/' + page, level)
    with open(os.path.join(root, 'tests', page), encoding='utf-8', errors='replace') as f:
        example = EXAMPLE.search(f.read())
    if example and findings is not None:
        more = scan(binary, base + example.group(1), level)
        if more is None:
            return None
        findings += more
    return findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sitescan', required=True)
    ap.add_argument('--audit', required=True, help='a checkout (or `git archive`) of alphagov/accessibility-tool-audit')
    ap.add_argument('--level', default='', help='A, AA or AAA (default: the scanner default)')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--json', help='write the per-page results here')
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix='sitescan-audit-')
    try:
        if os.path.isfile(os.path.join(a.audit, 'HEAD')) and not os.path.isdir(os.path.join(a.audit, 'tests')):
            # A bare git directory (a fetched snapshot): take its newest commit's files.
            archive = subprocess.run(['git', '--git-dir', a.audit, 'archive', 'HEAD', 'tests', 'assets', 'example-pages', 'tests.json'], capture_output=True, check=True).stdout
            subprocess.run(['tar', '-x', '-C', root], input=archive, check=True)
            a.audit = root
        else:
            for part in ('tests', 'assets', 'example-pages'):
                shutil.copytree(os.path.join(a.audit, part), os.path.join(root, part))
        with open(os.path.join(root, 'tests', 'zz-baseline.html'), 'w') as f:
            f.write(BASELINE)
        with open(os.path.join(a.audit, 'tests.json')) as f:
            catalogue = json.load(f)
        httpd = serve(root)
        base = f'http://127.0.0.1:{httpd.server_address[1]}/'
        pages = sorted(p for p in os.listdir(os.path.join(root, 'tests')) if p.endswith('.html') and p != 'zz-baseline.html')
        began = time.monotonic()
        baseline = scan(a.sitescan, base + 'tests/zz-baseline.html', a.level)
        if baseline is None:
            sys.exit('the baseline page could not be scanned')
        known = keys(baseline)
        results = {}
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futures = {pool.submit(scan_case, a.sitescan, root, base, p, a.level): p for p in pages}
            for fut in concurrent.futures.as_completed(futures):
                findings = fut.result()
                new = sorted(keys(findings) - known) if findings is not None else None
                results[futures[fut]] = new
        took = time.monotonic() - began
        category = {}
        for cat, tests in catalogue.items():
            for name in tests:
                category[name.lower()] = cat
        found = [p for p, new in results.items() if new]
        failed = [p for p, new in results.items() if new is None]
        print(f'GDS accessibility tool audit, level {a.level or "default"}: {len(found)} of {len(pages)} barriers found '
              f'({len(failed)} scans failed) in {took:.0f} s')
        by_cat = collections.Counter()
        misses = collections.defaultdict(list)
        for p in sorted(results):
            cat = p.split('-', 1)[0]
            if results[p]:
                by_cat[cat] += 1
            else:
                misses[cat].append(p[len(cat) + 1:-5])
        print('\nfound:')
        for p in sorted(found):
            ids = sorted({c for c, _ in results[p]})
            print(f'  {p[:-5]}: {", ".join(ids)}')
        print('\nnot found, by category:')
        for cat in sorted(misses):
            print(f'  {cat} ({len(misses[cat])}):')
            for m in misses[cat]:
                print(f'    {m}')
        if a.json:
            with open(a.json, 'w') as f:
                json.dump({p: [list(k) for k in (v or [])] for p, v in results.items()}, f, indent=1)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == '__main__':
    main()
