#!/usr/bin/env python3
"""Builds the real-page corpus from saved copies of real pages in public test suites.

Sources (fetched snapshots, read with git; nothing is downloaded here):
  postlight/parser                     fixtures/*.html          MIT
  scrapinghub/article-extraction-benchmark  html/*.html.gz      MIT

Every absolute or protocol-relative URL to a named host is rewritten to that name under
`.invalid` (RFC 6761: never resolves), so serving a page on 127.0.0.1 contacts no outside host,
and its third-party resources behave as a dead CDN does. Nothing else is changed.

  python3 bench/real/corpus.py --postlight DIR --scrapinghub DIR --out bench/real/pages
  python3 bench/real/corpus.py ... --sample 20 --out tests/fixtures/real   # the CI sample

DIR is a git directory (a bare snapshot) of each source. Writes `<out>/<source>--<name>.html`
and `<out>/SOURCES.tsv` (file, source, commit, path, licence).
"""
import argparse
import gzip
import hashlib
import os
import re
import subprocess
import sys

HOST = re.compile(rb'(?i)((?:https?:)?//)([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?![a-z0-9.-])')
IPV4 = re.compile(rb'^[0-9]+(?:\.[0-9]+){3}$')


def neuter(html: bytes) -> bytes:
    def repl(m):
        host = m.group(2)
        if host.lower().endswith(b'.invalid'):
            return m.group(0)
        if IPV4.match(host):
            host = b'ip-' + host.replace(b'.', b'-')
        return m.group(1) + host + b'.invalid'
    return HOST.sub(repl, html)


def git(dir, *args) -> bytes:
    return subprocess.run(['git', '--git-dir', dir, *args], check=True, capture_output=True).stdout


# Pages whose script builds an address on an outside host from pieces (no rewrite can see it) and
# sends the browser there: left out, so that no scan of the corpus looks up a public name.
EXCLUDED = {
    'html/c50845a7158af12ee75acea301a3ea0dad1e848d6b9dbdb43ba7f2d825b2528b.html.gz',
}


def source_files(dir, prefix, suffix):
    names = git(dir, 'ls-tree', '-r', '--name-only', 'HEAD', prefix).decode().split('\n')
    return sorted(n for n in names if n.endswith(suffix) and n not in EXCLUDED)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--postlight', required=True)
    ap.add_argument('--scrapinghub', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--per-source', type=int, default=100, help='pages taken from each source')
    ap.add_argument('--sample', type=int, default=0, help='a fixed sample of this many pages (CI)')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for label, dir, prefix, suffix, licence in [
        ('postlight', a.postlight, 'fixtures/', '.html', 'MIT (postlight/parser LICENSE-MIT)'),
        ('scrapinghub', a.scrapinghub, 'html/', '.html.gz', 'MIT (scrapinghub/article-extraction-benchmark LICENSE)'),
    ]:
        commit = git(dir, 'rev-parse', 'HEAD').decode().strip()
        files = source_files(dir, prefix, suffix)
        # A stable spread over the source: by hash of the path, not the first N by name.
        files.sort(key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        take = files[: a.per_source]
        if a.sample:
            take = files[: a.sample // 2 + (a.sample % 2 if label == 'postlight' else 0)]
        for path in take:
            raw = git(dir, 'show', f'HEAD:{path}')
            if path.endswith('.gz'):
                raw = gzip.decompress(raw)
            name = os.path.basename(path).replace('.html.gz', '').replace('.html', '')
            name = re.sub(r'[^A-Za-z0-9._-]', '-', name)[:60]
            file = f'{label}--{name}.html'
            with open(os.path.join(a.out, file), 'wb') as f:
                f.write(neuter(raw))
            rows.append((file, label, commit, path, licence))
    with open(os.path.join(a.out, 'SOURCES.tsv'), 'w') as f:
        f.write('file\tsource\tcommit\tpath\tlicence\n')
        for r in rows:
            f.write('\t'.join(r) + '\n')
    print(f'{len(rows)} pages in {a.out}', file=sys.stderr)


if __name__ == '__main__':
    main()
