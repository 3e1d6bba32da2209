#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Where test_compare.c's Mann-Whitney figures come from: SciPy 1.10
# (Debian 12 python3-scipy), computed from the raw samples with ranks,
# independently of our histogram formula. Run: /usr/bin/python3 mwu_scipy.py
from scipy.stats import mannwhitneyu

cases = {
    "small": ([100] * 3 + [200] * 5 + [300] * 2 + [1000],
              [200] * 2 + [300] * 4 + [400] * 3 + [5000] * 2),
    "medium": ([1 + (i * 7919) % 200 for i in range(500)],
               [20 + (i * 104729) % 220 for i in range(400)]),
}
for name, (a, b) in cases.items():
    r = mannwhitneyu(b, a, alternative="two-sided", use_continuity=False,
                     method="asymptotic")
    print(name, repr(r.statistic), repr(r.pvalue))
# small 99.0 0.009250627982291364
# medium 123997.5 5.912223302901201e-10
