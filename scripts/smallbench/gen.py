#!/usr/bin/env python3
"""gen.py: builds the small-workload benchmark of issue 29 from SchemaStore's development split.

For each chosen schema: OUT/<name>/schema.json (the schema, as SchemaStore has it) and
OUT/<name>/data.jsonl (the schema's own JSON test instances from src/test/<name>/, minified, one
a line, repeated in turn to about --lines lines). A schema is a candidate when it has JSON test
instances, no local dependencies (split-manifest.json's local_deps) and no $ref outside itself;
the candidates are sorted by name and --count of them taken evenly spaced. The ones that a
validator cannot read are dropped by run.py, which says so.

  python3 scripts/smallbench/gen.py --corpus ../shared/corpora/schemastore-dev --out /tmp/smallbench
"""
import argparse
import json
import os
import re
import sys


def minify(text):
    """The JSON text without the whitespace outside strings (numbers keep their spelling)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif c in ' \t\r\n':
            i += 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--corpus', default='../shared/corpora/schemastore-dev')
    ap.add_argument('--out', default='/tmp/smallbench')
    ap.add_argument('--count', type=int, default=36)
    ap.add_argument('--lines', type=int, default=1000)
    a = ap.parse_args()
    manifest = json.load(open(os.path.join(a.corpus, 'split-manifest.json')))
    cands = []
    for m in sorted(manifest, key=lambda m: m['schema']):
        if m.get('local_deps'):
            continue
        name = m['schema'][:-len('.json')]
        sp = os.path.join(a.corpus, 'src/schemas/json', m['schema'])
        td = os.path.join(a.corpus, 'src/test', name)
        if not os.path.isfile(sp) or not os.path.isdir(td):
            continue
        text = open(sp, encoding='utf-8').read()
        # refs to other documents (a URI or a file before the '#') would need a resolve map
        if re.search(r'"\$ref"\s*:\s*"[^"#]', text):
            continue
        insts = []
        for f in sorted(os.listdir(td)):
            if not f.endswith('.json'):
                continue
            try:
                t = open(os.path.join(td, f), encoding='utf-8').read()
                json.loads(t)
            except (ValueError, UnicodeDecodeError):
                continue
            insts.append(minify(t))
        if insts:
            cands.append((name, sp, insts))
    step = max(1, len(cands) / a.count)
    chosen = [cands[int(i * step)] for i in range(min(a.count, len(cands)))]
    for name, sp, insts in chosen:
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'schema.json'), 'w', encoding='utf-8') as w:
            w.write(open(sp, encoding='utf-8').read())
        reps = max(1, round(a.lines / len(insts)))
        with open(os.path.join(d, 'data.jsonl'), 'w', encoding='utf-8') as w:
            for _ in range(reps):
                for t in insts:
                    w.write(t + '\n')
    print('%d candidates, %d chosen into %s' % (len(cands), len(chosen), a.out), file=sys.stderr)


if __name__ == '__main__':
    main()
