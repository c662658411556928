// SPDX-License-Identifier: Apache-2.0
// Running the cudag binary from tests, and the parts of its result files that must be
// byte-identical between runs (skeleton, CPDAG, separating sets, pMax, text formats).
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"

namespace cudag::test {

/// A fresh directory for the running test: <tmp>/<prefix>_<test name>_<pid>.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / (prefix + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                                     "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

struct CommandResult {
    int code = -1;
    std::string err;  ///< stderr
    double seconds = 0.0;
};

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Run a shell command with stdout to `out_file` (or /dev/null) and stderr captured.
inline CommandResult run_command(const std::string& cmd, const std::filesystem::path& scratch,
                                 const std::string& out_file = "/dev/null") {
    const auto err = scratch / "stderr.txt";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system((cmd + " >" + out_file + " 2>" + err.string()).c_str());
    CommandResult r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = read_text(err);
    std::filesystem::remove(err);
    return r;
}

/// The string attribute /config/<key> of result file `f` ("" when absent).
inline std::string config_attr(hid_t f, const char* key) {
    io::h5::Handle config(H5Gopen2(f, "config", H5P_DEFAULT));
    if (config.get() < 0 || !io::h5::has_attr(config.get(), key)) return "";
    const auto v = io::h5::read_string_attr(config.get(), key, "/config");
    return v.empty() ? "" : v.front();
}

/// The raw bytes of datasets `names` of the HDF5 file `path`, by name.
inline std::vector<std::pair<std::string, std::vector<char>>> dataset_bytes(const std::string& path,
                                                                            const std::vector<std::string>& names) {
    io::h5::Handle f = io::h5::open_file(path);
    std::vector<std::pair<std::string, std::vector<char>>> out;
    for (const std::string& name : names) {
        hsize_t count = 1;
        for (hsize_t d : io::h5::dataset_shape(f.get(), name, path)) count *= d;
        io::h5::Handle ds(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT));
        io::h5::Handle type(H5Dget_type(ds.get()));
        std::vector<char> bytes(static_cast<std::size_t>(count) * H5Tget_size(type.get()));
        if (!bytes.empty()) io::h5::read_raw(f.get(), name, type.get(), bytes.data(), path);
        out.emplace_back(name, std::move(bytes));
    }
    return out;
}

/// The datasets of a result file that depend only on the data and the semantics, as
/// raw bytes by name (never timings or provenance). The number of tests run per level is
/// included for the CPU engine only: GPU engines stop an edge's tests as soon as a
/// separating set is known, so how many tests ran depends on the schedule.
inline std::vector<std::pair<std::string, std::vector<char>>> result_payload(const std::string& path) {
    bool cpu = false, pag = false;
    {
        io::h5::Handle f = io::h5::open_file(path);
        cpu = config_attr(f.get(), "backend") == "cpu";
        pag = H5Lexists(f.get(), "pag", H5P_DEFAULT) > 0;  // cudag fci's result: the PAG
    }
    std::vector<std::string> names = {"skeleton/edges",  pag ? "pag/edges" : "cpdag/edges", "sepsets/pairs",
                                      "sepsets/offsets", "sepsets/nodes",  "pmax/pairs",
                                      "pmax/values",     "levels/removed", "levels/edges_after"};
    if (cpu) names.push_back("levels/tests");
    return dataset_bytes(path, names);
}

/// The datasets of a `cudag mcmc` result that the chains decide (no timings or provenance).
inline std::vector<std::pair<std::string, std::vector<char>>> mcmc_payload(const std::string& path) {
    return dataset_bytes(path,
                         {"edge_prob", "chains/trace", "chains/acceptance", "chains/best_score", "chains/best_order",
                          "chains/final_order", "best_dag/edges", "best_dag/local_scores", "cpdag/edges"});
}

/// Equal `cudag mcmc` results, naming the first dataset that differs.
inline testing::AssertionResult same_mcmc_results(const std::string& got, const std::string& want) {
    const auto a = mcmc_payload(got), b = mcmc_payload(want);
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k].second != b[k].second)
            return testing::AssertionFailure() << "/" << a[k].first << " differs: " << got << " vs " << want;
    return testing::AssertionSuccess();
}

/// Environment for running `mpiexec` from a test: Open MPI refuses to start as root unless
/// told (containers, CI), and in containers without ptrace rights shared memory's
/// single-copy path breaks. Values already set are kept.
inline void prepare_mpiexec_environment() {
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
}

/// Every dataset and attribute of the HDF5 file `path`, by name: "/a/b" for a dataset,
/// "/a/b@name" for an attribute of object /a/b ("/@name" on the root); strings as their
/// text (joined by NUL), numbers as their native bytes. Datasets and attribute names in
/// `skip` ("levels/seconds", "seconds_total") are left out.
inline std::map<std::string, std::string> file_contents(const std::string& path, const std::set<std::string>& skip) {
    io::h5::Handle f = io::h5::open_file(path);
    std::vector<std::string> objects = {"/"};
    H5Lvisit(
        f.get(), H5_INDEX_NAME, H5_ITER_INC,
        [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
            static_cast<std::vector<std::string>*>(out)->push_back(std::string("/") + name);
            return 0;
        },
        &objects);
    const auto joined = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& x : v) s += x + '\0';
        return s;
    };
    std::map<std::string, std::string> out;
    for (const std::string& obj : objects) {
        io::h5::Handle o(H5Oopen(f.get(), obj.c_str(), H5P_DEFAULT));
        if (H5Iget_type(o.get()) == H5I_DATASET && !skip.count(obj.substr(1))) {
            io::h5::Handle ds(H5Dopen2(f.get(), obj.c_str(), H5P_DEFAULT));
            io::h5::Handle type(H5Dget_type(ds.get()));
            if (H5Tget_class(type.get()) == H5T_STRING) {
                out[obj] = joined(io::h5::read_strings(f.get(), obj, path));
            } else {
                io::h5::Handle native(H5Tget_native_type(type.get(), H5T_DIR_ASCEND));
                hsize_t count = 1;
                for (hsize_t d : io::h5::dataset_shape(f.get(), obj, path)) count *= d;
                std::string bytes(static_cast<std::size_t>(count) * H5Tget_size(native.get()), '\0');
                if (!bytes.empty()) io::h5::read_raw(f.get(), obj, native.get(), bytes.data(), path);
                out[obj] = std::move(bytes);
            }
        }
        std::vector<std::string> names;
        H5Aiterate2(
            o.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
            [](hid_t, const char* name, const H5A_info_t*, void* v) -> herr_t {
                static_cast<std::vector<std::string>*>(v)->push_back(name);
                return 0;
            },
            &names);
        for (const std::string& name : names) {
            if (skip.count(name)) continue;
            io::h5::Handle a(H5Aopen(o.get(), name.c_str(), H5P_DEFAULT));
            io::h5::Handle type(H5Aget_type(a.get()));
            const std::string key = (obj == "/" ? "" : obj) + "/@" + name;
            if (H5Tget_class(type.get()) == H5T_STRING) {
                out[key] = joined(io::h5::read_string_attr(o.get(), name, path));
            } else {
                io::h5::Handle native(H5Tget_native_type(type.get(), H5T_DIR_ASCEND));
                io::h5::Handle space(H5Aget_space(a.get()));
                std::string bytes(
                    static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())) * H5Tget_size(native.get()),
                    '\0');
                H5Aread(a.get(), native.get(), bytes.data());
                out[key] = std::move(bytes);
            }
        }
    }
    return out;
}

/// Equal file_contents, naming the first dataset or attribute that differs or is missing.
inline testing::AssertionResult same_file_contents(const std::string& got, const std::string& want,
                                                   const std::set<std::string>& skip) {
    const auto a = file_contents(got, skip), b = file_contents(want, skip);
    for (const auto& [name, bytes] : b) {
        const auto it = a.find(name);
        if (it == a.end()) return testing::AssertionFailure() << name << " is missing from " << got;
        if (it->second != bytes) return testing::AssertionFailure() << name << " differs: " << got << " vs " << want;
    }
    for (const auto& [name, bytes] : a)
        if (!b.count(name)) return testing::AssertionFailure() << name << " is missing from " << want;
    return testing::AssertionSuccess();
}

/// Equal payloads (and text files beside them, when given), naming the first difference.
inline testing::AssertionResult same_results(const std::string& got, const std::string& want,
                                             const std::vector<std::string>& suffixes = {}) {
    // By name: a GPU file has no levels/tests to compare (see result_payload).
    const auto a = result_payload(got), b = result_payload(want);
    for (const auto& [name, bytes] : a)
        for (const auto& [other, theirs] : b)
            if (name == other && bytes != theirs)
                return testing::AssertionFailure() << "/" << name << " differs: " << got << " vs " << want;
    const auto stem = [](const std::string& p) { return p.substr(0, p.size() - 3); };
    for (const std::string& s : suffixes)
        if (read_text(stem(got) + s) != read_text(stem(want) + s))
            return testing::AssertionFailure() << s << " differs: " << got << " vs " << want;
    return testing::AssertionSuccess();
}

}  // namespace cudag::test
