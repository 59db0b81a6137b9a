#!/usr/bin/env python3
"""`make bench-real`: one-page scans of every saved real page (`corpus.py`), served on 127.0.0.1.

Prints pages where any check did not run (grouped by reason), pages judged as another document
(the report's title is empty where the saved page has one, or the page failed), seconds a page
(median, p95, max), findings a page, and the check ids by share of pages; writes the whole run
to bench/real/results-<timestamp>.json.

  python3 bench/real/run.py --sitescan target/release/sitescan --pages bench/real/pages [--jobs 2]
"""
import argparse
import collections
import concurrent.futures
import functools
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

TITLE = re.compile(rb'(?is)<title[^>]*>(.*?)</title>')


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=directory)
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@functools.lru_cache(maxsize=None)
def extra_flags(binary):
    # `--allow-incomplete` where the build has it (an older build, for a before/after run, has not).
    help_text = subprocess.run([binary, 'scan', '--help'], capture_output=True).stdout.decode(errors='replace')
    return ['--allow-incomplete'] if '--allow-incomplete' in help_text else []


def scan(binary, url):
    began = time.monotonic()
    out = subprocess.run(
        [binary, 'scan', url, '--max-pages', '1', '--format', 'json', '--allow-target', '127.0.0.1/32', '--quiet', *extra_flags(binary)],
        capture_output=True, timeout=300,
    )
    took = time.monotonic() - began
    try:
        body = json.loads(out.stdout)
    except ValueError:
        body = None
    return took, out.returncode, body, out.stderr.decode(errors='replace')[-2000:]


def pct(values, p):
    values = sorted(values)
    if not values:
        return 0.0
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sitescan', required=True)
    ap.add_argument('--pages', default='bench/real/pages')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--keep', default='', help='check ids (comma-separated) whose findings are written to the results, to be looked at')
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.pages) if f.endswith('.html'))
    if a.limit:
        files = files[: a.limit]
    httpd = serve(a.pages)
    base = f'http://127.0.0.1:{httpd.server_address[1]}/'
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(scan, a.sitescan, base + f): f for f in files}
        for fut in concurrent.futures.as_completed(futures):
            f = futures[fut]
            results[f] = fut.result()
            print(f'  {len(results)}/{len(files)} {f} {results[f][0]:.1f} s', file=sys.stderr)
    httpd.shutdown()

    gaps = collections.defaultdict(list)
    other_doc = []
    unservable = []
    failed = []
    # Pages whose script sent the browser to an outside host (the corpus must hold none).
    left = []
    seconds = []
    findings_per_page = []
    share = collections.Counter()
    keep = set(filter(None, a.keep.split(',')))
    kept = collections.defaultdict(list)
    by_page = {}
    for f, (took, code, body, stderr) in sorted(results.items()):
        seconds.append(took)
        if body is None or body.get('scan', {}).get('status') != 'completed':
            failed.append((f, code, stderr.strip().splitlines()[-1:] if stderr else ''))
            continue
        report = body.get('report') or {}
        pages = report.get('pages') or []
        for p in pages:
            for n in p.get('checks_not_run') or []:
                gaps[n['reason']].append((f, n['check_id']))
        saved = open(os.path.join(a.pages, f), 'rb').read()
        m = TITLE.search(saved)
        has_title = bool(m and m.group(1).strip())
        page = pages[0] if pages else {}
        final = page.get('final_url') or ''
        host = final.split('/')[2].split(':')[0] if final.count('/') >= 2 else ''
        if host and host != '127.0.0.1' and not host.endswith('.invalid'):
            left.append((f, final))
        err = page.get('error') or {}
        requested = page.get('url') or ''
        if final.startswith('https://127.0.0.1') and 'ERR_SSL' in (err.get('message') or ''):
            # The page sends itself to https, which it is followed to; the corpus is served over
            # http only, so that address cannot answer here (on the real site it would).
            unservable.append((f, final, 'moved itself to https; the corpus server speaks http only'))
        elif not err and has_title and not (page.get('title') or '').strip() and final.split('#')[0] == requested.split('#')[0]:
            # The same document, emptied by its own script after load: judged as a visitor is
            # left with it.
            unservable.append((f, final, 'its own script emptied the document after load'))
        elif err or (has_title and not (page.get('title') or '').strip()):
            other_doc.append((f, final, page.get('error')))
        found = report.get('findings') or []
        findings_per_page.append(len(found))
        for cid in {x['check_id'] for x in found}:
            share[cid] += 1
        by_page[f] = sorted({x['check_id'] for x in found})
        for x in found:
            if x['check_id'] in keep:
                ev = x.get('evidence') or {}
                kept[x['check_id']].append({'page': f, 'severity': x.get('severity'), 'title': x.get('title'),
                                            **{k: ev.get(k) for k in ('selector', 'snippet', 'text', 'value', 'resource', 'reason', 'needs_review') if k in ev}})

    n = len(files)
    print(f'\nreal pages: {n}')
    gap_pages = {f for v in gaps.values() for f, _ in v}
    print(f'pages where a check did not run: {len(gap_pages)}')
    for reason, items in sorted(gaps.items(), key=lambda kv: -len({f for f, _ in kv[1]})):
        pages = sorted({f for f, _ in items})
        checks = sorted({c for _, c in items})
        print(f'  {len(pages)} pages, {len(checks)} checks: {reason[:160]}  (e.g. {pages[0]})')
    print(f'pages judged as another document or failed: {len(other_doc) + len(failed)}')
    for f, final, err in other_doc:
        print(f'  {f}: final {final} error {err}')
    for f, code, err in failed:
        print(f'  {f}: exit {code} {err}')
    if unservable:
        print(f'pages followed or judged as a visitor meets them, which the corpus cannot show whole: {len(unservable)}')
        for f, final, why in unservable:
            print(f'  {f}: {why} ({final})')
    if left:
        print(f'pages that sent the browser outside 127.0.0.1 (leave them out of the corpus): {len(left)}')
        for f, final in left:
            print(f'  {f}: {final}')
    print(f'seconds a page: median {statistics.median(seconds):.2f}, p95 {pct(seconds, 95):.2f}, max {max(seconds):.2f}')
    if findings_per_page:
        print(f'findings a page: median {statistics.median(findings_per_page):.0f}, p95 {pct(findings_per_page, 95):.0f}, max {max(findings_per_page)}')
    print('check ids by share of pages (top 25):')
    for cid, c in share.most_common(25):
        print(f'  {100 * c / n:5.1f}%  {cid}')
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), f'results-{time.strftime("%Y%m%d-%H%M%S")}.json')
    with open(out, 'w') as fh:
        json.dump({'pages': n, 'gaps': {k: v for k, v in gaps.items()}, 'other_document': other_doc, 'unservable': unservable, 'failed': failed,
                   'seconds': seconds, 'findings': findings_per_page, 'share': dict(share),
                   'by_page': by_page, 'kept': kept}, fh, indent=1)
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
