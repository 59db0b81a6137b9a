#!/usr/bin/env python3
"""Writes a gallery of test images for `looks.py`: every picture under the given directories
(PNG, JPEG, GIF, SVG; the same file once), eight a page, one under the other at up to 600 CSS px
wide, with alt text, so that most of a page's images lie below the viewport as they do on real
pages.

  python3 bench/ocr/gallery.py --out /tmp/gallery \\
      ../shared/act-rules/WAI/content-assets/wcag-act-rules/test-assets /path/to/accessibility-tool-audit/assets
  python3 bench/ocr/looks.py --sitescan target/release/sitescan --dir GALLERY=/tmp/gallery
"""
import argparse
import hashlib
import html
import os
import shutil

PICTURES = ('.png', '.jpg', '.jpeg', '.gif', '.svg')
A_PAGE = 8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('dirs', nargs='+')
    opts = ap.parse_args()
    os.makedirs(os.path.join(opts.out, 'img'), exist_ok=True)
    seen, images = set(), []
    for top in opts.dirs:
        for root, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.lower().endswith(PICTURES):
                    continue
                path = os.path.join(root, name)
                with open(path, 'rb') as f:
                    digest = hashlib.sha256(f.read()).hexdigest()[:12]
                if digest in seen:
                    continue
                seen.add(digest)
                copy = f'{digest}-{name}'
                shutil.copyfile(path, os.path.join(opts.out, 'img', copy))
                images.append(copy)
    for n in range(0, len(images), A_PAGE):
        figures = '\n'.join(
            f'<figure><img src="img/{html.escape(name)}" alt="picture {n + i + 1}" style="max-width:600px"></figure>'
            for i, name in enumerate(images[n:n + A_PAGE]))
        page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gallery {n // A_PAGE + 1}</title></head>'
                f'<body><main><h1>Gallery {n // A_PAGE + 1}</h1>\n{figures}\n</main></body></html>\n')
        with open(os.path.join(opts.out, f'gallery-{n // A_PAGE + 1:02}.html'), 'w') as f:
            f.write(page)
    print(f'{len(images)} images on {(len(images) + A_PAGE - 1) // A_PAGE} pages in {opts.out}')


if __name__ == '__main__':
    main()
