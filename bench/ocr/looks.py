#!/usr/bin/env python3
"""`make bench-ocr`: what the image prefilter skips, and what reading every image costs.

Scans pages one at a time, three times: with `--ocr` (every candidate image read) and with the default
(images read only when their pixels look like they hold text). From the first run's log
(`sitescan::image_look` at debug: each image's look, the prefilter's verdict, what Tesseract
read) it counts the images the prefilter would pass over although Tesseract read a sure word in
them (misses; those that only the first look passes over, the cheap look at each image in a
band captured at one device pixel a CSS pixel, are counted apart), and the images it spares; from the runs (and a third with `--no-ocr`), mean seconds a page and the image findings.

  python3 bench/ocr/looks.py --sitescan target/release/sitescan \\
      --dir ACT=../shared/act-rules --match testcases/0va7u6/ \\
      --dir GDS=/path/to/accessibility-tool-audit/tests --dir REAL=bench/real/pages [--limit 60]

Each --dir is NAME=DIRECTORY: every *.html under it (or DIRECTORY/*/index.html for the saved real
pages) is served on 127.0.0.1 and scanned alone.
"""
import argparse
import functools
import glob
import http.server
import json
import os
import statistics
import subprocess
import sys
import threading
import time

IMAGE_CHECKS = ('accessibility.image-of-text', 'accessibility.image-name-not-descriptive')


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=directory))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def pages_of(directory, limit, match):
    found = sorted(glob.glob(os.path.join(directory, '**', '*.html'), recursive=True))
    found = [p for p in found if not match or any(m in os.path.relpath(p, directory) for m in match)]
    index = [p for p in found if os.path.basename(p) == 'index.html']
    chosen = index if len(index) > len(found) / 2 else found
    return chosen[:limit] if limit else chosen


def scan(binary, url, ocr):
    """ocr: True (`--ocr`), False (the default) or None (`--no-ocr`)."""
    env = dict(os.environ, RUST_LOG='warn,sitescan::image_look=debug', SITESCAN_LOG_FORMAT='json')
    args = [binary, 'scan', url, '--max-pages', '1', '--format', 'json', '--allow-target', '127.0.0.1/32', '--allow-incomplete', '--quiet']
    if ocr:
        args.append('--ocr')
    elif ocr is None:
        args.append('--no-ocr')
    began = time.monotonic()
    out = subprocess.run(args, capture_output=True, timeout=300, env=env)
    took = time.monotonic() - began
    try:
        body = json.loads(out.stdout)
    except ValueError:
        body = {}
    looks = []
    for line in out.stderr.decode(errors='replace').splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        fields = event.get('fields', event)
        if fields.get('message') == 'image looked at':
            looks.append(fields)
    findings = [f for f in ((body.get('report') or {}).get('findings') or []) if f.get('check_id') in IMAGE_CHECKS]
    return took, looks, findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sitescan', required=True)
    ap.add_argument('--dir', action='append', default=[], help='NAME=DIRECTORY')
    ap.add_argument('--limit', type=int, default=0, help='at most this many pages a directory')
    ap.add_argument('--match', action='append', default=[], help='only pages whose path under the directory contains this')
    ap.add_argument('--json', help='write every image and page here')
    opts = ap.parse_args()
    rows, pages = [], []
    for spec in opts.dir:
        name, directory = spec.split('=', 1)
        httpd = serve(directory)
        base = f'http://127.0.0.1:{httpd.server_address[1]}/'
        for path in pages_of(directory, opts.limit, opts.match):
            url = base + os.path.relpath(path, directory).replace(os.sep, '/')
            t_all, looks, f_all = scan(opts.sitescan, url, True)
            t_default, _, f_default = scan(opts.sitescan, url, False)
            t_none, _, _ = scan(opts.sitescan, url, None)
            for look in looks:
                rows.append(dict(look, corpus=name, page=url))
            pages.append({'corpus': name, 'page': url, 'seconds_ocr_all': t_all, 'seconds_default': t_default, 'seconds_no_ocr': t_none,
                          'findings_ocr_all': len(f_all), 'findings_default': len(f_default)})
            print(f'{name} {os.path.relpath(path, directory)}: {len(looks)} images, '
                  f'{t_all:.2f} s all / {t_default:.2f} s default / {t_none:.2f} s none, image findings {len(f_all)} / {len(f_default)}', file=sys.stderr)
        httpd.shutdown()

    print('\n| corpus | pages | images | passed over at the first look | read by default | sure text | missed by default | of them by the first look alone | s/page `--ocr` | s/page default | s/page `--no-ocr` | image findings `--ocr` | default |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for name in dict.fromkeys(p['corpus'] for p in pages):
        mine = [r for r in rows if r['corpus'] == name]
        ps = [p for p in pages if p['corpus'] == name]
        read = sum(1 for r in mine if r.get('worth_reading'))
        sure = sum(1 for r in mine if int(r.get('sure', 0)) > 0)
        first_no = sum(1 for r in mine if r.get('first_worth_reading') is False)
        missed = [r for r in mine if int(r.get('sure', 0)) > 0 and not r.get('worth_reading')]
        # Misses the first look adds: passed over there, though the scaled-up look would read them.
        missed_first = sum(1 for r in missed if r.get('first_worth_reading') is False and r.get('scaled_worth_reading') is not False)
        print(f"| {name} | {len(ps)} | {len(mine)} | {first_no} | {read} | {sure} | {len(missed)} | {missed_first} | "
              f"{sum(p['seconds_ocr_all'] for p in ps) / len(ps):.2f} | {sum(p['seconds_default'] for p in ps) / len(ps):.2f} | {sum(p['seconds_no_ocr'] for p in ps) / len(ps):.2f} | "
              f"{sum(p['findings_ocr_all'] for p in ps)} | {sum(p['findings_default'] for p in ps)} |")
        for r in missed:
            print(f"  missed: {r['page']} {r.get('selector')} first {r.get('first_look')} scaled {r.get('look')} words {r.get('words')}", file=sys.stderr)
    if opts.json:
        with open(opts.json, 'w') as f:
            json.dump({'images': rows, 'pages': pages}, f, indent=1)


if __name__ == '__main__':
    main()
