// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file
/// Reproducible log, log1p, exp, erfc and lgamma for host and device.
///
/// Why this file exists: Bayesian-network scores (lgamma sums) and MCMC acceptance
/// decisions (exp of a score difference) must be bit-identical whether computed by the
/// CPU or by a CUDA kernel. glibc's and CUDA's libm disagree in the last bits, so these
/// functions are built only from IEEE-754 basic operations (+, -, *, /, comparisons,
/// integer <-> double conversion) and exact bit manipulation of the exponent field. No
/// libm call, no fma, no long double, no tables. With floating-point contraction off
/// (g++ -ffp-contract=off, which the project sets; nvcc --fmad=false for the kernel
/// files that include this header) the same source yields the same bits on both sides.
///
/// Algorithms (textbook mathematics, written for this project):
///  - log: x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
///    log(1 + f) = 2 atanh(s), s = f / (2 + f), written as
///    f - f^2/2 + s (f^2/2 + T(s^2)) with the atanh Taylor series T to s^20;
///    k ln2 is added as a 33-bit hi part (k ln2_hi exact) plus a lo part.
///  - exp: k = round(x / ln2), r = x - k ln2_hi - k ln2_lo (|r| <= 0.347), the rounding
///    error of r carried as a correction, exp(r) by its Taylor series to r^13 with
///    1 + r split exactly, then scaled by 2^k through the exponent bits.
///  - lgamma (x > 0): for x >= 10 the Stirling series (to the x^-15 term) on
///    (x - 1/2)(log x - 1) + log(2 pi)/2 - 1/2; for x < 10 the argument is moved by
///    the recurrence into [1.5, 2.5) where the Taylor series of lgamma(2 + t) (27 terms,
///    coefficients (-1)^k (zeta(k) - 1) / k) is used; the moves cost one log of a
///    product of exact factors. Near the zeros at 1 and 2 the result keeps absolute
///    accuracy because lgamma(2 + t) = t (c1 + t (...)) and t = x - 2 or x - 1 is exact.
///
/// Measured accuracy (tests/unit/core/test_exact_math.cpp, x86-64 glibc; lgamma against
/// long double lgammal):
///  - log: max 1 ulp from std::log over 2.8e6 arguments (1e-310..1e308, near 1, powers
///    of two and neighbours), 99.0% bit-equal (99.9% on the geometric sweep alone).
///  - exp: max 1 ulp from std::exp over 1.5e6 arguments (-746..709.8, subnormal results
///    included), 99.0% bit-equal.
///  - lgamma: max relative error 4.0e-16 where |lgamma| >= 0.5 and max absolute error
///    1.2e-16 where |lgamma| < 0.5 (2.3e6 arguments, 1e-300..1e305, dense on 0.5..3,
///    integers and half-integers to 1e5); up to 7 ulp from glibc's lgamma.
/// Cost on the development CPU (g++ -O3, throughput): log ~11 ns, exp ~13 ns,
/// lgamma ~17 ns for x >= 10 and ~45 ns below 10 (glibc: 6, 8, 15, 16 ns).
///
/// Special values: log(+-0) = -inf, log(x < 0) = log(NaN) = NaN, log(+inf) = +inf.
/// exp(NaN) = NaN, exp(x > 710) = +inf (values in (709.78, 710] overflow to +inf
/// through the final multiplication), exp(x < -746) = +0, exp(-inf) = +0. Results in
/// the subnormal range are obtained by one final multiplication by a power of two, i.e.
/// the 53-bit result is rounded once more: deterministic, within 1 subnormal ulp.
/// lgamma(x <= 0) = lgamma(NaN) = NaN, lgamma(+inf) = +inf, lgamma(1) = lgamma(2) = +0
/// exactly; lgamma overflows to +inf above about 2.55e305.

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

#include "core/hd.hpp"

namespace cudag::xm {

namespace detail {

CUDAG_HD inline std::uint64_t to_bits(double x) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    return std::bit_cast<std::uint64_t>(x);
#endif
}

CUDAG_HD inline double from_bits(std::uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(b));
#else
    return std::bit_cast<double>(b);
#endif
}

CUDAG_HD inline double inf() { return from_bits(0x7ff0000000000000ULL); }
CUDAG_HD inline double nan() { return from_bits(0x7ff8000000000000ULL); }

/// 2^k for k in [-1022, 1023], built from the exponent bits.
CUDAG_HD inline double pow2(int k) { return from_bits(static_cast<std::uint64_t>(k + 1023) << 52); }

/// c[0] + x (c[1] + x (c[2] + ...)), Horner's scheme, highest coefficient first.
template <int N>
CUDAG_HD inline double horner(double x, const double (&c)[N]) {
    double p = c[N - 1];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = N - 2; i >= 0; --i) p = c[i] + x * p;
    return p;
}

// ln 2 = LN2_HI + LN2_LO; LN2_HI has 33 significant bits, so k * LN2_HI is exact for
// |k| < 2^20.
constexpr double LN2_HI = 0x1.62e42fefp-1;
constexpr double LN2_LO = 0x1.473de6af278edp-34;
constexpr double INV_LN2 = 0x1.71547652b82fep+0;
constexpr double SQRT2 = 0x1.6a09e667f3bcdp+0;

/// log(2 pi) / 2 - 1/2.
constexpr double STIRLING_C = 0x1.acfe390c97d69p-2;

/// lgamma(2 + t) for |t| <= 1/2 (Taylor series about 2, truncation error < 6e-18
/// relative). lgamma(2 + 0) is +0 exactly.
CUDAG_HD inline double lgamma2p(double t) {
    constexpr double a[] = {
        0x1.b0ee6072093cep-2,  // 1 - Euler gamma
        0x1.4a34cc4a60fa6p-2,  // a_k = (-1)^k (zeta(k) - 1) / k
        -0x1.13e001a557607p-4,  0x1.51322ac7d8483p-6,  -0x1.e404fc218f5f2p-8,  0x1.7add6eadb6c30p-9,
        -0x1.38ac5c2bf8e08p-10, 0x1.0b36af86396e9p-11, -0x1.d3fd4c76d2fc8p-13, 0x1.a127b0f17d65ap-14,
        -0x1.78de5bd7c81efp-15, 0x1.580dcee66eb02p-16, -0x1.3cbc963ce2243p-17, 0x1.2597a39f34aacp-18,
        -0x1.11b2eb7679541p-19, 0x1.0064cdeb22f0fp-20, -0x1.e2600d93cfd2fp-22, 0x1.c76bbb3f07a4dp-23,
        -0x1.af5a6cbbf8a97p-24, 0x1.99b93c2070b0fp-25, -0x1.862c734df3eacp-26, 0x1.7469daccfadcdp-27,
        -0x1.6434a8447aeadp-28, 0x1.555a877ffd2c3p-29, -0x1.47b1679258d0ep-30, 0x1.3b15d2b2fc10cp-31,
        -0x1.2f69a9fabe3e0p-32,
    };
    return t * horner(t, a);  // sum_{k=1..27} a_k t^k
}

}  // namespace detail

/// Natural logarithm; within 1 ulp of the correctly rounded result.
CUDAG_HD inline double log(double x) {
    using namespace detail;
    if (!(x > 0.0)) return x == 0.0 ? -inf() : nan();  // NaN and x < 0 give NaN
    std::uint64_t b = to_bits(x);
    if (b >= 0x7ff0000000000000ULL) return x;  // +inf
    int k = 0;
    if (b < 0x0010000000000000ULL) {  // subnormal: scale by 2^54 (exact)
        x *= 0x1p54;
        b = to_bits(x);
        k = -54;
    }
    k += static_cast<int>(b >> 52) - 1023;
    double m = from_bits((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
    if (m > SQRT2) {
        m *= 0.5;
        ++k;
    }
    const double f = m - 1.0;  // exact, in [-0.293, 0.415)
    const double s = f / (2.0 + f);
    const double z = s * s;
    // T(z) = sum_{j>=1} 2 z^j / (2j + 1), to j = 10 (|z| <= 0.0295: truncation < 1e-18).
    constexpr double c[] = {2.0 / 3.0,  2.0 / 5.0,  2.0 / 7.0,  2.0 / 9.0,  2.0 / 11.0,
                            2.0 / 13.0, 2.0 / 15.0, 2.0 / 17.0, 2.0 / 19.0, 2.0 / 21.0};
    const double t = z * horner(z, c);
    const double hfsq = 0.5 * f * f;
    const double dk = static_cast<double>(k);
    // log(1 + f) = 2s + s T = f - hfsq + s (hfsq + T), since s f = hfsq (1 - s).
    return dk * LN2_HI - ((hfsq - (s * (hfsq + t) + dk * LN2_LO)) - f);
}

/// Exponential; within 1 ulp of the correctly rounded result for normal results.
CUDAG_HD inline double exp(double x) {
    using namespace detail;
    if (x != x) return x;
    if (x > 710.0) return inf();
    if (x < -746.0) return 0.0;
    const double kt = x * INV_LN2;
    const int k = static_cast<int>(kt < 0.0 ? kt - 0.5 : kt + 0.5);  // in [-1076, 1024]
    const double dk = static_cast<double>(k);
    const double rhi = x - dk * LN2_HI;  // exact
    const double rlo = dk * LN2_LO;
    const double r = rhi - rlo;
    const double corr = (rhi - r) - rlo;  // what rounding r lost
    // q = exp(r) - 1 - r, Taylor to r^13 (|r| <= 0.347: truncation < 5e-18).
    constexpr double c[] = {1.0 / 2.0,       1.0 / 6.0,        1.0 / 24.0,        1.0 / 120.0,
                            1.0 / 720.0,     1.0 / 5040.0,     1.0 / 40320.0,     1.0 / 362880.0,
                            1.0 / 3628800.0, 1.0 / 39916800.0, 1.0 / 479001600.0, 1.0 / 6227020800.0};
    const double q = (r * r) * horner(r, c);
    const double hi = 1.0 + r;
    const double lo = (1.0 - hi) + r;  // exact: 1 + r = hi + lo
    const double y = hi + (lo + (q + corr * hi));
    if (k >= -1022) {
        if (k <= 1023) return y * pow2(k);
        return (y * 2.0) * pow2(k - 1);  // may overflow to +inf
    }
    return (y * pow2(k + 1000)) * 0x1p-1000;  // first product exact, second rounds once
}

/// log(1 + x) for x > -1 (Goldberg's correction: u = 1 + x rounded, then
/// log u * x / (u - 1)); within a few ulps, the same bits on host and device.
CUDAG_HD inline double log1p(double x) {
    const double u = 1.0 + x;
    if (u == 1.0) return x;
    return xm::log(u) * (x / (u - 1.0));
}

namespace detail {

/// exp(-x^2) for x >= 0 without the rounding of x^2: x = xh + d with xh holding x's top 26
/// significant bits, so xh^2 is exact and x^2 = xh^2 + d (x + xh); two exps, their product.
CUDAG_HD inline double exp_minus_square(double x) {
    const double xh = from_bits(to_bits(x) & 0xfffffffff8000000ULL);
    const double d = x - xh;  // exact
    return xm::exp(-(xh * xh)) * xm::exp(-(d * (x + xh)));
}

}  // namespace detail

/// Complementary error function, within a few ulps (relative) where the result is normal;
/// the same bits on host and device (the Fisher-z p-value, ci/fisher_z.hpp, is erfc of the
/// statistic over sqrt 2, and CPU and GPU p-values must agree to the bit).
///
/// Pieces, each a polynomial written for this project: Chebyshev interpolants (60-digit
/// arithmetic) of the function named at each array, turned into powers of t and rounded to
/// double (scripts/dev/erfc_coefficients.py); the interpolation error of each is below 1e-17
/// relative. For x in [0, 1/2),
/// 1 - x h(x^2) with h = erf(x)/x; on [1/2, 2) erfc itself in three pieces; on [2, 4)
/// exp(-x^2) times erfcx = exp(x^2) erfc(x) in two pieces; above 4, exp(-x^2) g(1/x^2) / x
/// with g = x erfcx(x) (smooth in 1/x^2, g(0) = 1/sqrt(pi)); 0 above 27.3 (underflow).
/// erfc(-x) = 2 - erfc(x). Measured against glibc's long-double erfcl in
/// tests/unit/core/test_exact_math.cpp.
CUDAG_HD inline double erfc(double x) {
    using namespace detail;
    // erf(x)/x in s = x^2 on [0, 1/4], t = s - 1/8
    constexpr double kErfSmall[] = {0x1.15446b34ed348p+0,   -0x1.658407f4c04c0p-2,  0x1.a6db683de1276p-4,
                                    -0x1.8f7e682c96cd8p-6,  0x1.35219bf04bdf6p-8,   -0x1.93403af733005p-11,
                                    0x1.c5c5703cf6dd2p-14,  -0x1.c08f4c11bbea1p-17, 0x1.8b2b73c6a8ddap-20,
                                    -0x1.39fdacc3f61efp-23, 0x1.c60ae6747e9bcp-27};
    // erfc(x) on [1/2, 1), t = x - 3/4
    constexpr double kErfc05[] = {0x1.27c6d14c5e341p-2,  -0x1.492e42d78d2c5p-1,  0x1.edc5644353c27p-2,
                                  -0x1.b6e8591f65e30p-6, -0x1.349b5eaa14681p-3,  0x1.b42a189076e8ap-5,
                                  0x1.b847796701a6dp-6,  -0x1.2e0afad7b4ac3p-6,  -0x1.2db333b4ce61bp-9,
                                  0x1.04103d05ade71p-8,  -0x1.862185356d484p-13, -0x1.4710d00f25d6ep-11,
                                  0x1.bd13d8e7a2e3cp-14, 0x1.36b989ccff556p-14,  -0x1.667fa58b0070ap-16};
    // erfc(x) on [1, 3/2), t = x - 5/4
    constexpr double kErfc10[] = {0x1.3bcd133aa0ffcp-4,   -0x1.e4652fadcb6b1p-3,  0x1.2ebf3dcc9f22fp-2,
                                  -0x1.571d01c5c588cp-3,  0x1.93a9a7bb7f98dp-8,   0x1.8281ce0b82f08p-5,
                                  -0x1.5d0003af90ad9p-6,  -0x1.db43cae5db126p-9,  0x1.75672d12391f6p-8,
                                  -0x1.cc2172222da51p-11, -0x1.a0077eba0fde4p-11, 0x1.538c382602086p-12,
                                  0x1.baa412d8caf14p-15,  -0x1.c7dbbabc9602cp-15, 0x1.6b00eb2cb6fdap-19};
    // erfc(x) on [3/2, 2), t = x - 7/4
    constexpr double kErfc15[] = {0x1.b4be201caa4b4p-7,   -0x1.b055303221017p-5, 0x1.7a4a8a2bdce13p-4,
                                  -0x1.7148c3d57c13dp-4,  0x1.8a0da54306125p-5,  -0x1.b22257de3e309p-8,
                                  -0x1.25b378c922971p-7,  0x1.8d10fbc9edc40p-8,  -0x1.7ec1d1fe41acfp-11,
                                  -0x1.d4cf7e6170c7fp-11, 0x1.d041fa2455146p-12, 0x1.722db27883de3p-18,
                                  -0x1.200b75b2a369cp-14, 0x1.1c9c05c8566aap-16, 0x1.39018723e6d46p-18};
    // exp(x^2) erfc(x) on [2, 3), t = x - 5/2
    constexpr double kErfcx2[] = {0x1.afbb3f3b7343bp-3,   -0x1.3086d7f01ac89p-4,  0x1.98958a7a8e4a6p-6,
                                  -0x1.0632076808c92p-7,  0x1.435c04e206cd2p-9,   -0x1.809ce8ae42cf9p-11,
                                  0x1.ba8a67d269207p-13,  -0x1.edd4201bab49dp-15, 0x1.0bcba18a8f4b3p-16,
                                  -0x1.1ad21df850abdp-18, 0x1.2350e5ea264dfp-20,  -0x1.24bbed0b3392dp-22,
                                  0x1.200cd85731b89p-24,  -0x1.247092d91b604p-26, 0x1.1395650bd6106p-28};
    // exp(x^2) erfc(x) on [3, 4), t = x - 7/2
    constexpr double kErfcx3[] = {0x1.3e0a99a0ee914p-3,   -0x1.5285d2eb1ef74p-5,  0x1.5d581133378edp-7,
                                  -0x1.5e5d7e9898f22p-9,  0x1.5632136d8cb0ap-11,  -0x1.460abd6b8c152p-13,
                                  0x1.2f839e548ec82p-15,  -0x1.146bc38cc902cp-17, 0x1.ed2a95b68e70ep-20,
                                  -0x1.af5df988867aep-22, 0x1.7250072180c46p-24,  -0x1.3814aee81380fp-26,
                                  0x1.02b7d2a1c8c2ap-28,  -0x1.b641ccba9012cp-31, 0x1.5f71a00a79932p-33};
    // x exp(x^2) erfc(x) in v = 1/x^2 on (0, 1/16], t = v - 1/32
    constexpr double kErfcxTail[] = {0x1.1c8c55ad08099p-1,   -0x1.088ffc939719bp-2, 0x1.5dcd442df6328p-2,
                                     -0x1.6ec49a0d3f50bp-1,  0x1.00fd05e0612bdp+1,  -0x1.bb48265839bc6p+2,
                                     0x1.c070b1672ffcfp+4,   -0x1.01deb0ab668e3p+7, 0x1.49bd12903345fp+9,
                                     -0x1.c90d9682e974bp+11, 0x1.5898b57b25303p+14, -0x1.4c72d1bf9ecd3p+17,
                                     0x1.22c1eea0a9b93p+20};
    if (x != x) return x;
    const double a = x < 0.0 ? -x : x;
    double r;
    if (a < 0.5) {
        r = 1.0 - a * horner(a * a - 0.125, kErfSmall);
    } else if (a < 2.0) {
        r = a < 1.0 ? horner(a - 0.75, kErfc05) : a < 1.5 ? horner(a - 1.25, kErfc10) : horner(a - 1.75, kErfc15);
    } else if (a < 4.0) {
        r = exp_minus_square(a) * (a < 3.0 ? horner(a - 2.5, kErfcx2) : horner(a - 3.5, kErfcx3));
    } else if (a < 27.3) {
        r = exp_minus_square(a) * horner(1.0 / (a * a) - 0.03125, kErfcxTail) / a;
    } else {
        r = 0.0;  // erfc(27.3) < 5e-325, below the least subnormal
    }
    return x < 0.0 ? 2.0 - r : r;
}

/// log Gamma(x) for x > 0; NaN for x <= 0 and NaN, +inf for +inf.
CUDAG_HD inline double lgamma(double x) {
    using namespace detail;
    if (!(x > 0.0)) return nan();
    if (x >= 10.0) {
        // Stirling: (x - 1/2) log x - x + log(2 pi)/2 + sum B_2j / (2j (2j - 1) x^(2j-1)).
        const double r = 1.0 / x;
        const double w = r * r;
        constexpr double c[] = {1.0 / 12.0,   -1.0 / 360.0,      1.0 / 1260.0, -1.0 / 1680.0,
                                1.0 / 1188.0, -691.0 / 360360.0, 1.0 / 156.0,  -3617.0 / 122400.0};
        const double s = r * horner(w, c);
        return (x - 0.5) * (xm::log(x) - 1.0) + (STIRLING_C + s);
    }
    if (x < 0.5) return lgamma2p(x) - xm::log(x * (1.0 + x));  // lgamma(x+2) - log(x(x+1))
    if (x < 1.5) return lgamma2p(x - 1.0) - xm::log(x);        // x - 1 exact
    if (x < 2.5) return lgamma2p(x - 2.0);                     // x - 2 exact
    double p = 1.0;
    do {  // lgamma(x) = lgamma(x - 1) + log(x - 1); each x - 1 is exact here
        x -= 1.0;
        p *= x;
    } while (x >= 2.5);
    return lgamma2p(x - 2.0) + xm::log(p);
}

}  // namespace cudag::xm
