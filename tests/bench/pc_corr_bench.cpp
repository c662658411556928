// SPDX-License-Identifier: Apache-2.0
// pc::run_pc on a correlation matrix as given (the R package's suffStat list(C, n) path, with
// no R around it) or on a data table (FILE ending in .csv: the run computes C), timed: the
// median and smallest wall-clock milliseconds of REPS calls in one process, the levels' and the
// orientation's share (the first call's phase notes, CUDAG_TRACE for more).
// The matrix file: int64 p, int64 n (samples), then p*p doubles, row-major (native endian).
//   pc_corr_bench FILE [REPS] [THREADS] [BACKEND cpu|cuda|auto] [ALPHA] [MAX_LEVEL] [EDGES_OUT]
// (scripts/bench/r_pc_vs_pcalg.R's input: see its WRITE; scripts/bench/small_gpu_calls.sh's
// CSV tables.) EDGES_OUT: the skeleton's pairs "i j" (0-based, i < j), one a line.
// CUDAG_BENCH_TUNE=key=value,...: the hidden kernel knobs, as cudag's --tune takes them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/tunables.hpp"
#include "io/dataset_io.hpp"
#include "pc/run.hpp"

static int run(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pc_corr_bench FILE [REPS] [THREADS]\n");
        return 2;
    }
    const std::string file = argv[1];
    const bool table = file.size() > 4 && file.compare(file.size() - 4, 4, ".csv") == 0;
    cudag::Dataset d;
    std::shared_ptr<std::vector<double>> c;
    if (table) {
        d = cudag::io::read_dataset(file);
    } else {
        std::ifstream in(file, std::ios::binary);
        std::int64_t p = 0, n = 0;
        in.read(reinterpret_cast<char*>(&p), sizeof p);
        in.read(reinterpret_cast<char*>(&n), sizeof n);
        if (!in || p <= 0 || n <= 0) {
            std::fprintf(stderr, "pc_corr_bench: %s: no int64 p, n header\n", argv[1]);
            return 1;
        }
        c = std::make_shared<std::vector<double>>(static_cast<std::size_t>(p * p));
        in.read(reinterpret_cast<char*>(c->data()), static_cast<std::streamsize>(c->size() * sizeof(double)));
        if (!in) {
            std::fprintf(stderr, "pc_corr_bench: %s: fewer than p*p doubles\n", argv[1]);
            return 1;
        }
        d.n_samples = n;
        d.n_vars = p;
        for (std::int64_t i = 0; i < p; ++i) d.names.push_back(std::to_string(i + 1));
        d.source = "bench";
    }
    const std::int64_t p = d.n_vars, n = d.n_samples;
    const int reps = argc > 2 ? std::max(1, std::stoi(argv[2])) : 20;
    const int threads = argc > 3 ? std::stoi(argv[3]) : 0;
    const std::string backend = argc > 4 ? argv[4] : "cpu";
    cudag::pc::PcConfig cfg;
    cfg.test.kind = cudag::skeleton::TestKind::FisherZ;
    cfg.alpha = argc > 5 ? std::stod(argv[5]) : 0.01;
    cfg.max_level = argc > 6 ? std::stoi(argv[6]) : -1;
    cfg.backend.kind = backend == "cuda"   ? cudag::BackendKind::Cuda
                       : backend == "auto" ? cudag::BackendKind::Auto
                                           : cudag::BackendKind::Cpu;
    cfg.backend.threads = threads;
    if (const char* tune = std::getenv("CUDAG_BENCH_TUNE"))  // hidden kernel knobs, as --tune takes them
        cudag::apply_tunes({tune}, cfg.backend.tunables);
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
            if (argc > 7) {
                std::FILE* f = std::fopen(argv[7], "w");
                if (!f) {
                    std::fprintf(stderr, "pc_corr_bench: cannot write %s\n", argv[7]);
                    return 1;
                }
                for (std::int32_t i = 0; i < res.skeleton.n(); ++i)
                    for (const std::int32_t j : res.skeleton.neighbours(i))
                        if (i < j) std::fprintf(f, "%d %d\n", i, j);
                std::fclose(f);
            }
        }
    }
    // The first call apart (it makes the GPU's context and loads its kernels); the medians
    // of the others.
    const double first = ms[0];
    if (ms.size() > 1) {
        ms.erase(ms.begin());
        level_ms.erase(level_ms.begin());
    }
    std::sort(ms.begin(), ms.end());
    std::sort(level_ms.begin(), level_ms.end());
    std::printf(
        "p %lld n %lld %s threads %d reps %d: first call %.3f ms, run_pc median %.3f ms (min %.3f), levels median %.3f "
        "ms, %lld edges\n",
        static_cast<long long>(p), static_cast<long long>(n), backend.c_str(), threads, reps, first, ms[ms.size() / 2],
        ms[0], level_ms[level_ms.size() / 2], static_cast<long long>(edges));
    return 0;
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pc_corr_bench: %s\n", e.what());
        return 1;
    }
}
