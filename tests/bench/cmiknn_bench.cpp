// SPDX-License-Identifier: Apache-2.0
// cmiknn_bench: times a list of CMIknn tests on one data set, on the CPU (ci::CmiKnn, one
// test after another) or on the GPU (cuda::CmiKnnGpu, the whole list as one batch), for the
// micro-benchmarks of the GPU-CMIknn paper (Hagedorn et al.; shared/seeds/DIGEST.md §2.7,
// Tables 1–4: "median runtime of 20 CI tests"). scripts/bench/cmiknn_gpu.sh drives it.
//
// Usage: cmiknn_bench --data FILE --tests FILE [--knn K] [--shuffle-neighbors S]
//                     [--permutations B] [--transform T] [--seed N]
//                     [--backend cpu|cuda] [--threads N] [--repeat R] [--device D] [--single]
//   --tests: a TSV file, one test per line: x, y and a comma-separated list of conditioning
//   columns (possibly empty or absent); 0-based column indices of --data; '#' starts a
//   comment line. Each conditioning set is sorted, and the test's random-number stream is
//   ci::cmi_test_id(x, y, ci::cmi_set_key(z, |z|)) with x and y as given.
//
// Timing: setup (reading excluded; ci::CmiKnn's transforms, or make_cmiknn_gpu's upload)
// is timed apart. CPU: each run is the tests one after another, each with the exact p
// (no early stop) and its surrogates on --threads threads (0: all), each test timed. CUDA:
// one untimed warm-up run, then each run is one CmiKnnGpu::run(all tests, no early stop),
// or with --single one run() call per test, each timed. "seconds" is the median of the R
// runs' times over all tests; "seconds_per_test" the median over tests of each test's
// median time (the paper's measure: the median of single tests), or for a batch the
// batch's median time divided by the number of tests.
//
// Output: one JSON object on stdout: backend, setup_seconds, seconds, runs (R),
// run_seconds (each run), batch, seconds_per_test, test_seconds (each test's median; empty
// for a batch), k, samples, variables, permutations, shuffle_neighbors, threads, and
// results [{x, y, z, statistic, p}] (numbers printed with %.17g, so two outputs are
// equal exactly when their text is). Errors: one line on stderr, exit 1; exit 3 when
// --backend cuda is asked of a build or machine without CUDA.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/dataset_io.hpp"
#if CUDAG_HAVE_CUDA
#include "kernels/engines.hpp"
#endif

namespace {

using cudag::InputError;

struct Test {
    std::int32_t x = 0, y = 0;
    std::vector<std::int32_t> z;  ///< sorted
    std::uint64_t id = 0;
};

/// A 0-based column index of `n_vars` columns, from `text` (line `line` of `path`).
std::int32_t column_index(const std::string& text, std::int64_t n_vars, const std::string& path, int line) {
    std::size_t used = 0;
    long long v = -1;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || v < 0 || v >= n_vars)
        throw InputError(path + ":" + std::to_string(line) + ": '" + text + "' is not a column index in 0.." +
                         std::to_string(n_vars - 1));
    return static_cast<std::int32_t>(v);
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<Test> read_tests(const std::string& path, std::int64_t n_vars) {
    std::ifstream in(path);
    if (!in) throw InputError("cannot open '" + path + "'");
    std::vector<Test> tests;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (trim(line).empty() || trim(line)[0] == '#') continue;
        std::vector<std::string> fields;
        std::stringstream ss(line);
        for (std::string f; std::getline(ss, f, '\t');) fields.push_back(trim(f));
        if (fields.size() < 2 || fields.size() > 3)
            throw InputError(path + ":" + std::to_string(number) + ": expected x<TAB>y[<TAB>z1,z2,...], got " +
                             std::to_string(fields.size()) + " fields");
        Test t;
        t.x = column_index(fields[0], n_vars, path, number);
        t.y = column_index(fields[1], n_vars, path, number);
        if (fields.size() == 3 && !fields[2].empty()) {
            std::stringstream zs(fields[2]);
            for (std::string f; std::getline(zs, f, ',');) t.z.push_back(column_index(trim(f), n_vars, path, number));
        }
        std::sort(t.z.begin(), t.z.end());
        std::vector<std::int32_t> all = t.z;
        all.push_back(t.x);
        all.push_back(t.y);
        std::sort(all.begin(), all.end());
        if (std::adjacent_find(all.begin(), all.end()) != all.end())
            throw InputError(path + ":" + std::to_string(number) +
                             ": x, y and the conditioning columns must be distinct");
        t.id = cudag::ci::cmi_test_id(t.x, t.y, cudag::ci::cmi_set_key(t.z.data(), static_cast<int>(t.z.size())));
        tests.push_back(std::move(t));
    }
    if (tests.empty()) throw InputError(path + ": no tests");
    return tests;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

struct Timings {
    double setup = 0.0;
    std::vector<double> runs;                   ///< seconds of each run over all tests
    std::vector<std::vector<double>> per_test;  ///< [test][run] seconds; empty for a batch
    std::vector<cudag::ci::CmiKnnResult> results;
};

Timings run_cpu(const cudag::Dataset& data, const cudag::ci::CmiKnnSpec& spec, int max_cond,
                const std::vector<Test>& tests, int threads, int repeat) {
    Timings t;
    auto t0 = std::chrono::steady_clock::now();
    const cudag::ci::CmiKnn cmi(data, spec, max_cond);
    std::vector<cudag::ci::CmiKnnWorkspace> ws(static_cast<std::size_t>(threads));
    t.setup = seconds_since(t0);
    t.per_test.resize(tests.size());
    for (int r = 0; r < repeat; ++r) {
        std::vector<cudag::ci::CmiKnnResult> results;
        results.reserve(tests.size());
        t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < tests.size(); ++i) {
            const Test& q = tests[i];
            const auto ti = std::chrono::steady_clock::now();
            results.push_back(cmi.test(q.x, q.y, q.z, q.id, ws, std::nullopt));
            t.per_test[i].push_back(seconds_since(ti));
        }
        t.runs.push_back(seconds_since(t0));
        t.results = std::move(results);
    }
    return t;
}

#if CUDAG_HAVE_CUDA
Timings run_cuda(const cudag::Dataset& data, const cudag::ci::CmiKnnSpec& spec, int max_cond,
                 const std::vector<Test>& tests, int repeat, int device, bool single) {
    Timings t;
    std::vector<cudag::cuda::CmiKnnQuery> queries;
    for (const Test& q : tests) queries.push_back({q.x, q.y, q.z, q.id});
    auto t0 = std::chrono::steady_clock::now();
    const auto gpu = cudag::cuda::make_cmiknn_gpu(data, spec, max_cond, device);
    t.setup = seconds_since(t0);
    (void)gpu->run(queries, std::nullopt);  // warm-up: first launches, allocations
    if (single) t.per_test.resize(tests.size());
    for (int r = 0; r < repeat; ++r) {
        t0 = std::chrono::steady_clock::now();
        if (single) {  // one query per run() call, as GPU-CMIknn-Single launches one test
            t.results.clear();
            for (std::size_t i = 0; i < queries.size(); ++i) {
                const auto ti = std::chrono::steady_clock::now();
                t.results.push_back(gpu->run({queries[i]}, std::nullopt).at(0));
                t.per_test[i].push_back(seconds_since(ti));
            }
        } else {
            t.results = gpu->run(queries, std::nullopt);
        }
        t.runs.push_back(seconds_since(t0));
    }
    return t;
}
#endif

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"cmiknn_bench: time CMIknn tests on the CPU or the GPU; JSON on stdout"};
    std::string data_path, tests_path, backend = "cpu", transform = "ranks";
    cudag::ci::CmiKnnSpec spec;
    int threads = 0, repeat = 1, device = 0;
    bool single = false;
    app.add_option("--data", data_path, "data: CSV/TSV with a header row, or HDF5")->required();
    app.add_option("--tests", tests_path, "TSV: x, y, comma-separated conditioning columns (0-based)")->required();
    app.add_option("--knn", spec.knn, "estimator k (a fraction of T when < 1)")->capture_default_str();
    app.add_option("--shuffle-neighbors", spec.shuffle_neighbors, "local-permutation neighbours")
        ->capture_default_str();
    app.add_option("--permutations", spec.permutations, "surrogates B")->capture_default_str();
    app.add_option("--transform", transform, "ranks, standardize, uniform or none")->capture_default_str();
    app.add_option("--seed", spec.seed, "random-number key")->capture_default_str();
    app.add_option("--backend", backend, "cpu or cuda")->capture_default_str();
    app.add_option("--threads", threads, "CPU: threads for each test's surrogates (0: all)")->capture_default_str();
    app.add_option("--repeat", repeat, "timed runs (the median is reported)")->capture_default_str();
    app.add_option("--device", device, "CUDA device")->capture_default_str();
    app.add_flag("--single", single, "CUDA: run the tests one per CmiKnnGpu::run call, each timed");
    CLI11_PARSE(app, argc, argv);

    try {
        if (backend != "cpu" && backend != "cuda")
            throw InputError("unknown --backend '" + backend + "' (cpu or cuda)");
        if (repeat < 1) throw InputError("--repeat must be >= 1");
        if (threads < 0) throw InputError("--threads must be >= 0 (0: all)");
        spec.transform = cudag::ci::parse_cmi_transform(transform);
        spec.early_stop.reset();
        threads = cudag::resolve_threads(threads);

        const cudag::Dataset data = cudag::io::read_dataset(data_path);
        if (data.discrete()) throw InputError(data_path + ": CMIknn needs continuous data");
        const std::vector<Test> tests = read_tests(tests_path, data.n_vars);
        int max_cond = 0;
        for (const Test& q : tests) max_cond = std::max(max_cond, static_cast<int>(q.z.size()));

        Timings t;
        if (backend == "cpu") {
            t = run_cpu(data, spec, max_cond, tests, threads, repeat);
        } else {
#if CUDAG_HAVE_CUDA
            if (cudag::cuda::device_count() <= device) {
                std::cerr << "cmiknn_bench: no CUDA device " << device << " (" << cudag::cuda::device_report() << ")\n";
                return 3;
            }
            t = run_cuda(data, spec, max_cond, tests, repeat, device, single);
#else
            std::cerr << "cmiknn_bench: this build has no CUDA (configured with "
                         "-DCUDAG_ENABLE_CUDA=OFF)\n";
            return 3;
#endif
        }

        const std::int64_t k = cudag::ci::cmi_k(spec.knn, data.n_samples);
        std::ostringstream out;
        out << "{\"backend\": \"" << backend << "\", \"setup_seconds\": " << number(t.setup)
            << ", \"seconds\": " << number(median(t.runs)) << ", \"runs\": " << t.runs.size() << ", \"run_seconds\": [";
        for (std::size_t r = 0; r < t.runs.size(); ++r) out << (r ? ", " : "") << number(t.runs[r]);
        // Seconds per test: the median over tests of each test's median over runs, or for a
        // batch, the run's time over the number of tests (a mean: the batch hides the rest).
        std::vector<double> test_seconds;
        for (const auto& runs : t.per_test) test_seconds.push_back(median(runs));
        const bool batch = test_seconds.empty();
        const double per_test = batch ? median(t.runs) / static_cast<double>(tests.size()) : median(test_seconds);
        out << "], \"batch\": " << (batch ? "true" : "false") << ", \"seconds_per_test\": " << number(per_test)
            << ", \"test_seconds\": [";
        for (std::size_t i = 0; i < test_seconds.size(); ++i) out << (i ? ", " : "") << number(test_seconds[i]);
        out << "], \"k\": " << k << ", \"samples\": " << data.n_samples << ", \"variables\": " << data.n_vars
            << ", \"permutations\": " << spec.permutations << ", \"shuffle_neighbors\": " << spec.shuffle_neighbors
            << ", \"threads\": " << (backend == "cpu" ? threads : 0) << ", \"results\": [";
        for (std::size_t i = 0; i < tests.size(); ++i) {
            const Test& q = tests[i];
            out << (i ? ",\n  " : "\n  ") << "{\"x\": " << q.x << ", \"y\": " << q.y << ", \"z\": [";
            for (std::size_t j = 0; j < q.z.size(); ++j) out << (j ? ", " : "") << q.z[j];
            out << "], \"statistic\": " << number(t.results[i].statistic) << ", \"p\": " << number(t.results[i].p)
                << "}";
        }
        out << "]}\n";
        std::cout << out.str();
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "cmiknn_bench: " << e.what() << '\n';
        return 1;
    }
}
