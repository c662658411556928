// SPDX-License-Identifier: Apache-2.0
// pc::run_pc on a correlation matrix as given (the R package's suffStat list(C, n) path, with
// no R around it), timed: the median and smallest wall-clock milliseconds of REPS calls, the
// levels' and the orientation's share (the first call's phase notes, CUDAG_TRACE for more).
// The matrix file: int64 p, int64 n (samples), then p*p doubles, row-major (native endian).
//   pc_corr_bench FILE [REPS] [THREADS]     (scripts/bench/r_pc_vs_pcalg.R's input: see its WRITE)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "pc/run.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pc_corr_bench FILE [REPS] [THREADS]\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::int64_t p = 0, n = 0;
    in.read(reinterpret_cast<char*>(&p), sizeof p);
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    if (!in || p <= 0 || n <= 0) {
        std::fprintf(stderr, "pc_corr_bench: %s: no int64 p, n header\n", argv[1]);
        return 1;
    }
    auto c = std::make_shared<std::vector<double>>(static_cast<std::size_t>(p * p));
    in.read(reinterpret_cast<char*>(c->data()), static_cast<std::streamsize>(c->size() * sizeof(double)));
    if (!in) {
        std::fprintf(stderr, "pc_corr_bench: %s: fewer than p*p doubles\n", argv[1]);
        return 1;
    }
    const int reps = argc > 2 ? std::max(1, std::stoi(argv[2])) : 20;
    const int threads = argc > 3 ? std::stoi(argv[3]) : 0;
    cudag::Dataset d;
    d.n_samples = n;
    d.n_vars = p;
    for (std::int64_t i = 0; i < p; ++i) d.names.push_back(std::to_string(i + 1));
    d.source = "bench";
    cudag::pc::PcConfig cfg;
    cfg.test.kind = cudag::skeleton::TestKind::FisherZ;
    cfg.alpha = 0.01;
    cfg.backend.kind = cudag::BackendKind::Cpu;
    cfg.backend.threads = threads;
    cfg.correlation = c;
    std::vector<double> ms, level_ms;
    std::int64_t edges = 0;
    for (int r = 0; r < reps; ++r) {
        cfg.on_note = r == 0 ? [](const std::string& s) { std::fprintf(stderr, "note: %s\n", s.c_str()); }
                             : std::function<void(const std::string&)>();
        const auto t0 = std::chrono::steady_clock::now();
        const cudag::pc::PcResult res = cudag::pc::run_pc(d, cfg);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        double lv = 0.0;
        for (const auto& s : res.levels) lv += s.seconds * 1e3;
        level_ms.push_back(lv);
        edges = res.skeleton.n_edges();
        if (r == 0) {  // a digest of the answer: skeleton, pMax's bits, separating sets, tests per level
            std::uint64_t h = 1469598103934665603ull;
            const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
            for (std::int32_t i = 0; i < res.skeleton.n(); ++i)
                for (const std::int32_t j : res.skeleton.neighbours(i))
                    mix(static_cast<std::uint64_t>(i) << 32 | static_cast<std::uint32_t>(j));
            for (const auto& e : res.pmax) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, &e.p, sizeof bits);
                mix(static_cast<std::uint64_t>(e.i) << 32 | static_cast<std::uint32_t>(e.j));
                mix(bits);
            }
            for (const auto& [key, set] : res.sepsets.all()) {
                mix(static_cast<std::uint64_t>(key.first) << 32 | static_cast<std::uint32_t>(key.second));
                for (const auto v : set) mix(static_cast<std::uint64_t>(v));
            }
            for (const auto& s : res.levels) mix(static_cast<std::uint64_t>(s.tests));
            std::printf("digest %016llx\n", static_cast<unsigned long long>(h));
        }
    }
    std::sort(ms.begin(), ms.end());
    std::sort(level_ms.begin(), level_ms.end());
    std::printf(
        "p %lld n %lld threads %d reps %d: run_pc median %.2f ms (min %.2f), levels median %.2f ms, %lld edges\n",
        static_cast<long long>(p), static_cast<long long>(n), threads, reps, ms[ms.size() / 2], ms[0],
        level_ms[level_ms.size() / 2], static_cast<long long>(edges));
    return 0;
}
