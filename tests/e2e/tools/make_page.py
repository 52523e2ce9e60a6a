#!/usr/bin/env python3
"""make_page.py: build a timeline page from a trace-event JSON file, as
`hindsight timeline -o x.html` does, without hindsight: web/timeline.html
with its tokens replaced by web/timeline.css, d3.min.js, the data and
web/timeline.js. For the page's own tests and its development.

    make_page.py DATA.json -o PAGE.html [--title TEXT] [--web DIR] [--d3 FILE]

The data goes into a <script type="application/json"> element with every '<'
written as \\u003c (valid inside JSON strings, where alone it can occur), so
no function name can end the element. Tokens are replaced in one pass over the
template: nothing inserted is scanned again.
"""
import argparse
import html
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.normpath(os.path.join(HERE, "..", "..", "..", "web"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def build(template, css, d3, js, data_text, title):
    for name, text, end in (("css", css, "</style"), ("d3", d3, "</script"), ("js", js, "</script")):
        if end in text.lower():
            raise ValueError("%s contains %s" % (name, end))
    json.loads(data_text)  # must be JSON
    data = data_text.replace("<", "\\u003c")
    parts = {
        "@TITLE@": html.escape(title),
        "<style>/*@CSS@*/</style>": "<style>" + css + "</style>",
        "<script>/*@D3@*/</script>": "<script>" + d3 + "</script>",
        '<script type="application/json" id="hindsight-trace">/*@DATA@*/</script>':
            '<script type="application/json" id="hindsight-trace">' + data + "</script>",
        "<script>/*@JS@*/</script>": "<script>" + js + "</script>",
    }
    for token in parts:
        n = template.count(token)
        if n != 1:
            raise ValueError("template has %d of %s, wants 1" % (n, token))
    pattern = re.compile("|".join(re.escape(t) for t in parts))
    return pattern.sub(lambda m: parts[m.group(0)], template)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", help="trace-event JSON file")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default=None, help="default: the data file's name")
    ap.add_argument("--web", default=WEB, help="folder with timeline.html/.css/.js")
    ap.add_argument("--d3", default=None, help="default: WEB/node_modules/d3/dist/d3.min.js")
    a = ap.parse_args()
    d3_path = a.d3 or os.path.join(a.web, "node_modules", "d3", "dist", "d3.min.js")
    try:
        page = build(read(os.path.join(a.web, "timeline.html")),
                     read(os.path.join(a.web, "timeline.css")),
                     read(d3_path),
                     read(os.path.join(a.web, "timeline.js")),
                     read(a.data),
                     a.title if a.title is not None else os.path.basename(a.data))
    except (OSError, ValueError) as e:
        print("make_page: %s" % e, file=sys.stderr)
        return 1
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
