#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates the polynomial coefficients of xm::erfc (src/core/exact_math.hpp).

Not run by the build or the tests (they check the result against glibc's erfcl); kept so that
the constants can be re-derived. Needs mpmath (`pip install mpmath`), a development tool only.

Each piece: the Chebyshev interpolant of degree d (d + 1 Chebyshev nodes of the first kind on
[a, b]) of the function named, in 60-digit arithmetic, turned into powers of t = x - (a + b)/2
and rounded to double (printed as hexadecimal literals).
"""
import mpmath as mp

mp.mp.dps = 60


def chebyshev_monomials(f, a, b, deg):
    a, b = mp.mpf(a), mp.mpf(b)
    mid, half = (a + b) / 2, (b - a) / 2
    n = deg + 1
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vals = [f(mid + half * u) for u in nodes]
    c = [2 * mp.fsum(vals[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n)) / n for j in range(n)]
    c[0] /= 2
    cheb = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]  # T_j as monomial coefficients in u
    for j in range(2, n):
        up = [mp.mpf(0)] + [2 * v for v in cheb[j - 1]]
        down = cheb[j - 2] + [mp.mpf(0)] * (len(up) - len(cheb[j - 2]))
        cheb.append([x - y for x, y in zip(up, down)])
    mono = [mp.mpf(0)] * n
    for j in range(n):
        for i, v in enumerate(cheb[j]):
            mono[i] += c[j] * v
    return [mono[i] / half**i for i in range(n)]  # in t = half * u


def erfcx(x):
    return mp.exp(x * x) * mp.erfc(x)


def erf_over_x(s):  # in s = x^2
    return mp.erf(mp.sqrt(s)) / mp.sqrt(s) if s > 0 else 2 / mp.sqrt(mp.pi)


def tail(v):  # x erfcx(x) in v = 1/x^2
    return erfcx(1 / mp.sqrt(v)) / mp.sqrt(v) if v > 0 else 1 / mp.sqrt(mp.pi)


PIECES = [
    ("kErfSmall", erf_over_x, 0, 0.25, 10, "erf(x)/x in s = x^2 on [0, 1/4], t = s - 1/8"),
    ("kErfc05", mp.erfc, 0.5, 1.0, 14, "erfc(x) on [1/2, 1), t = x - 3/4"),
    ("kErfc10", mp.erfc, 1.0, 1.5, 14, "erfc(x) on [1, 3/2), t = x - 5/4"),
    ("kErfc15", mp.erfc, 1.5, 2.0, 14, "erfc(x) on [3/2, 2), t = x - 7/4"),
    ("kErfcx2", erfcx, 2.0, 3.0, 14, "exp(x^2) erfc(x) on [2, 3), t = x - 5/2"),
    ("kErfcx3", erfcx, 3.0, 4.0, 14, "exp(x^2) erfc(x) on [3, 4), t = x - 7/2"),
    ("kErfcxTail", tail, 0, 1 / 16, 12, "x exp(x^2) erfc(x) in v = 1/x^2 on (0, 1/16], t = v - 1/32"),
]

if __name__ == "__main__":
    for name, f, a, b, deg, doc in PIECES:
        coeffs = chebyshev_monomials(f, a, b, deg)
        print(f"// {doc}")
        print(f"constexpr double {name}[] = {{{', '.join(float(c).hex() for c in coeffs)}}};")
