#!/usr/bin/env python3
"""`make bench-real`: one-page scans of every saved real page (`corpus.py`), served on 127.0.0.1.

Prints pages where any check did not run (grouped by reason), pages judged as another document
(the report's title is empty where the saved page has one, or the page failed), seconds a page
(median, p95, max), findings a page, and the check ids by share of pages; writes the whole run
to bench/real/results-<timestamp>.json.

  python3 bench/real/run.py --sitescan target/release/sitescan --pages bench/real/pages [--jobs 2]

`--page-cpu` also prints each capture phase's wall time and what it cost the page's main thread
(Chromium's performance counters, log target `sitescan_engine::page_cpu`), per page. `--compare
results-....json` prints every finding (check id, selector, evidence) one run has on a page and
the other has not, for a before/after of a change to what runs in the page.
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


PAGE_CPU_LOG = 'warn,sitescan_engine::browser::capture=debug,sitescan_engine::page_cpu=debug'


def scan(binary, url, page_cpu=False):
    began = time.monotonic()
    env = dict(os.environ, RUST_LOG=PAGE_CPU_LOG) if page_cpu else None
    out = subprocess.run(
        [binary, *(['--log-format', 'json'] if page_cpu else []), 'scan', url, '--max-pages', '1', '--format', 'json',
         '--allow-target', '127.0.0.1/32', '--quiet', *extra_flags(binary)],
        capture_output=True, timeout=300, env=env,
    )
    took = time.monotonic() - began
    try:
        body = json.loads(out.stdout)
    except ValueError:
        body = None
    stderr = out.stderr.decode(errors='replace')
    phases = {}
    if page_cpu:
        for line in stderr.splitlines():
            try:
                v = json.loads(line)
            except ValueError:
                continue
            msg = v.get('message') or (v.get('fields') or {}).get('message')
            text = v.get('phases') or (v.get('fields') or {}).get('phases') or ''
            if msg == 'capture phases':
                for pair in text.split():
                    name, _, ms = pair.partition('=')
                    phases.setdefault(name, {})['wall'] = float(ms)
            elif msg == 'page main thread by phase':
                for pair in text.split():
                    name, _, ms = pair.partition('=')
                    task, script, layout = (float(x) for x in ms.split('/'))
                    phases.setdefault(name, {}).update(task=task, script=script, layout=layout)
    return took, out.returncode, body, stderr[-2000:], phases


LOOPBACK_PORT = re.compile(r'127\.0\.0\.1:\d+')


def finding_key(x):
    ev = x.get('evidence') or {}
    detail = {k: ev.get(k) for k in ('selector', 'snippet', 'text', 'value', 'resource') if ev.get(k) is not None}
    # The corpus is served on a new port each run.
    return LOOPBACK_PORT.sub('127.0.0.1:PORT', x['check_id'] + ' ' + json.dumps(detail, sort_keys=True, ensure_ascii=False))


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
    ap.add_argument('--page-cpu', action='store_true', help="each capture phase's wall and page main-thread time")
    ap.add_argument('--compare', default='', help='an earlier results file: print the findings that differ page by page')
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.pages) if f.endswith('.html'))
    if a.limit:
        files = files[: a.limit]
    httpd = serve(a.pages)
    base = f'http://127.0.0.1:{httpd.server_address[1]}/'
    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(scan, a.sitescan, base + f, a.page_cpu): f for f in files}
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
    keys_by_page = {}
    phase_rows = collections.defaultdict(lambda: collections.defaultdict(float))
    for f, (took, code, body, stderr, phases) in sorted(results.items()):
        for name, cols in phases.items():
            for col, ms in cols.items():
                phase_rows[name][col] += ms
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
        keys_by_page[f] = sorted(finding_key(x) for x in found)
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
    if phase_rows:
        print(f'capture phases, ms a page over {n} pages (wall; the page main thread: all its tasks, and layout with style among them):')
        print(f'  {"phase":<14} {"wall":>8} {"main":>8} {"layout":>8}')
        for name, cols in phase_rows.items():
            cells = ' '.join(f'{cols[c] / n:>8.1f}' if c in cols else f'{"-":>8}' for c in ('wall', 'task', 'layout'))
            print(f'  {name:<14} {cells}')
        totals = ' '.join(f'{sum(cols.get(c, 0) for cols in phase_rows.values()) / n:>8.1f}' for c in ('wall', 'task', 'layout'))
        print(f'  {"total":<14} {totals}')
    if a.compare:
        before = {f: [LOOPBACK_PORT.sub('127.0.0.1:PORT', k) for k in keys] for f, keys in (json.load(open(a.compare)).get('keys_by_page') or {}).items()}
        differing = 0
        for f in sorted(set(before) & set(keys_by_page)):
            old, new = collections.Counter(before[f]), collections.Counter(keys_by_page[f])
            lost, gained = old - new, new - old
            if lost or gained:
                differing += 1
                for k in list(lost)[:5]:
                    print(f'  {f}: only before: {k[:200]}')
                for k in list(gained)[:5]:
                    print(f'  {f}: only now: {k[:200]}')
        print(f'pages whose findings differ from {os.path.basename(a.compare)}: {differing} of {len(set(before) & set(keys_by_page))}')
    print('check ids by share of pages (top 25):')
    for cid, c in share.most_common(25):
        print(f'  {100 * c / n:5.1f}%  {cid}')
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), f'results-{time.strftime("%Y%m%d-%H%M%S")}.json')
    with open(out, 'w') as fh:
        json.dump({'pages': n, 'gaps': {k: v for k, v in gaps.items()}, 'other_document': other_doc, 'unservable': unservable, 'failed': failed,
                   'seconds': seconds, 'findings': findings_per_page, 'share': dict(share),
                   'by_page': by_page, 'keys_by_page': keys_by_page, 'phases': phase_rows, 'kept': kept}, fh, indent=1)
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
