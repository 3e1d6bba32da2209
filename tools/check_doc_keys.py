#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every JSON key the reports write (the string literals given to
rpt_jset*() in lib/report/report*.c, and the names in their key tables)
appears in docs/usage.md as a word. Prints the missing ones; exit 1 if any.

  tools/check_doc_keys.py [--root DIR]
"""
import argparse
import glob
import os
import re
import sys

SET = re.compile(r'\b(?:rpt_)?jset(?:_\w+)?\(\s*\w+,\s*"([A-Za-z0-9_.]+)"')
TABLE = re.compile(r'(?:pct_key|report_\w+_name)\[[^\]]*\]\s*=\s*\{(.*?)\};',
                   re.S)
STRING = re.compile(r'"([A-Za-z0-9_]+)"')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..'))
    a = ap.parse_args()
    src = ''
    for path in sorted(glob.glob(os.path.join(a.root, 'lib/report',
                                              'report*.c'))):
        with open(path, encoding='utf-8') as f:
            src += f.read()
    with open(os.path.join(a.root, 'docs/usage.md'), encoding='utf-8') as f:
        doc = f.read()
    keys = set(SET.findall(src))
    for body in TABLE.findall(src):
        keys.update(STRING.findall(body))
    if not keys:
        print('check_doc_keys: no keys found in lib/report/report*.c')
        return 1
    missing = sorted(k for k in keys
                     if not re.search(r'(?<![\w])' + re.escape(k) +
                                      r'(?![\w])', doc))
    for k in missing:
        print(f'docs/usage.md does not name the JSON key "{k}"')
    if missing:
        return 1
    print(f'check_doc_keys: {len(keys)} keys, all in docs/usage.md')
    return 0


if __name__ == '__main__':
    sys.exit(main())
