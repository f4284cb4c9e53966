#!/usr/bin/env python3
"""Build the HTML manual with Doxygen into a temporary folder and check
that every relative link in it (href and src) names a file that exists
there, and every #anchor an id or name in that file: the installed HTML
has no broken links (a link into the source tree, such as
../bench/results/, resolves nowhere once installed).

Usage: check_html_links.py DOXYGEN DOXYFILE      (exit 1 naming each
broken link)
       check_html_links.py --dir HTML_DIR        (check built HTML only)
"""
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if v is None:
                continue
            if k in ("href", "src"):
                self.links.append((tag, v))
            elif k in ("id", "name"):
                self.anchors.add(v)


def parse(path, cache):
    if path not in cache:
        p = Links()
        with open(path, encoding="utf-8", errors="replace") as fh:
            p.feed(fh.read())
        cache[path] = p
    return cache[path]


def check(root):
    cache = {}
    bad = []
    pages = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            pages += 1
            page = os.path.join(dirpath, name)
            for tag, link in parse(page, cache).links:
                u = urllib.parse.urlsplit(link)
                if u.scheme or u.netloc or link.startswith("//"):
                    continue  # absolute URLs, javascript:, mailto:
                target = page
                if u.path:
                    target = os.path.normpath(
                        os.path.join(dirpath, urllib.parse.unquote(u.path)))
                    if not os.path.exists(target):
                        bad.append("%s: <%s> %s: no such file"
                                   % (os.path.relpath(page, root), tag, link))
                        continue
                    if not os.path.realpath(target).startswith(os.path.realpath(root)):
                        bad.append("%s: <%s> %s: outside the HTML tree"
                                   % (os.path.relpath(page, root), tag, link))
                        continue
                frag = urllib.parse.unquote(u.fragment)
                if frag and target.endswith(".html") and os.path.isfile(target):
                    if frag not in parse(target, cache).anchors:
                        bad.append("%s: %s: no anchor #%s"
                                   % (os.path.relpath(page, root), link, frag))
    return pages, bad


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--dir":
        html_dir = sys.argv[2]
        tmp = None
    elif len(sys.argv) == 3:
        doxygen, doxyfile = sys.argv[1], sys.argv[2]
        tmp = tempfile.mkdtemp(prefix="ibr-html-")
        with open(doxyfile, encoding="utf-8") as fh:
            conf = fh.read()
        conf += "\nOUTPUT_DIRECTORY = %s\n" % tmp
        r = subprocess.run([doxygen, "-"], input=conf, text=True, capture_output=True)
        if r.returncode != 0:
            print("doxygen failed (%d):\n%s%s" % (r.returncode, r.stdout, r.stderr))
            shutil.rmtree(tmp, ignore_errors=True)
            return 1
        html_dir = os.path.join(tmp, "html")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        pages, bad = check(html_dir)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    for b in bad:
        print(b)
    if pages == 0:
        print("no HTML page found in %s" % html_dir)
        return 1
    print("%d pages, %d broken links" % (pages, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
