#!/usr/bin/env python3
"""run.py: the small-workload benchmark of issue 29, end to end as a user runs a CLI (start,
compile, parse, validate): for each OUT/<name>/ of gen.py, every named validator is run on
schema.json and data.jsonl in alternating rounds; CPU (user+sys of the child) and wall time
are taken per run, and the median per schema is printed, with the ratio of each validator's
CPU to the first one's and the geometric means. A schema that a validator cannot read, or
whose instances a validator does not pass, is left out (and said so): only the valid path is
measured.

  python3 scripts/smallbench/run.py --dir /tmp/smallbench --rounds 11 \
      jstk=/tmp/jstk sourcemeta=$SOURCEMETA

A validator is NAME=PATH; its command line is taken from NAME's prefix (jstk..., sourcemeta...,
v6..., santhosh-tekuri/jsonschema v6 built from v6.go).
"""
import argparse
import math
import os
import statistics
import subprocess
import sys
import time


def command(name, path, d):
    s, data = os.path.join(d, 'schema.json'), os.path.join(d, 'data.jsonl')
    if name.startswith('jstk'):
        return [path, 'validate', '--schema', s, data]
    if name.startswith('sourcemeta'):
        return [path, 'validate', s, data] + (['--fast'] if name.endswith('fast') else [])
    if name.startswith('v6'):
        return [path, s, data]  # scripts/smallbench/v6.go
    raise SystemExit('unknown validator ' + name)


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    return os.waitstatus_to_exitcode(status), (ru.ru_utime + ru.ru_stime) * 1000, wall * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dir', default='/tmp/smallbench')
    ap.add_argument('--rounds', type=int, default=11)
    ap.add_argument('--only', default='')
    ap.add_argument('tools', nargs='+')
    a = ap.parse_args()
    tools = [t.split('=', 1) for t in a.tools]
    names = sorted(os.listdir(a.dir))
    if a.only:
        names = [n for n in names if n in a.only.split(',')]
    rows, ratios = [], {n: [] for n, _ in tools[1:]}
    print('load average at start: %.2f %.2f %.2f' % os.getloadavg())
    print('%-36s' % 'schema' + ''.join('%14s' % (n + ' ms') for n, _ in tools) +
          ''.join('%12s' % (n + '/' + tools[0][0]) for n, _ in tools[1:]))
    for name in names:
        d = os.path.join(a.dir, name)
        bad = [n for n, p in tools if run(command(n, p, d))[0] != 0]
        if bad:
            print('%-36s left out: %s does not pass it' % (name, ', '.join(bad)))
            continue
        cpu = {n: [] for n, _ in tools}
        for r in range(a.rounds):
            order = tools if r % 2 == 0 else tools[::-1]
            for n, p in order:
                cpu[n].append(run(command(n, p, d))[1])
        med = {n: statistics.median(v) for n, v in cpu.items()}
        base = med[tools[0][0]]
        for n, _ in tools[1:]:
            ratios[n].append(med[n] / base)
        print('%-36s' % name + ''.join('%14.1f' % med[n] for n, _ in tools) +
              ''.join('%12.2f' % (med[n] / base) for n, _ in tools[1:]), flush=True)
    for n, r in ratios.items():
        if r:
            g = math.exp(sum(math.log(x) for x in r) / len(r))
            print('geometric mean of %s/%s CPU over %d schemas: %.3f (inverse %.3f); %s uses less on %d'
                  % (n, tools[0][0], len(r), g, 1 / g, n, sum(1 for x in r if x < 1)))
    print('load average at end: %.2f %.2f %.2f' % os.getloadavg())


if __name__ == '__main__':
    main()
