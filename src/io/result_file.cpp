// SPDX-License-Identifier: Apache-2.0
#include "io/result_file.hpp"

#include <cmath>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_file.hpp"
#include "io/result_layout.hpp"
#include "io/writers.hpp"

namespace cudag::io {

std::string sanitize_attr_name(const std::string& key) {
    std::string out = key.empty() ? "_" : key;
    for (char& c : out) {
        const bool ok =
            (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) c = '_';
    }
    return out;
}

void write_result_hdf5(const pc::PcResult& r, const std::string& path) {
    const auto n = static_cast<std::int64_t>(r.names.size());
    CUDAG_ASSERT(r.skeleton.n() == n);
    CUDAG_ASSERT(r.cpdag.n() == n);
    const std::string where = "cannot write '" + path + "'";
    const auto un = static_cast<hsize_t>(n);

    h5::Handle file = h5::create_file(path);
    const hid_t root = file.get();

    // Root attributes: provenance and sizes.
    h5::write_string_attr(root, "cudag_version", CUDAG_VERSION, where);
    h5::write_string_attr(root, "format", pc_result_format, where);
    const std::int64_t n_samples = r.n_samples;
    h5::write_scalar_attr(root, "n_samples", H5T_NATIVE_INT64, H5T_STD_I64LE, &n_samples, where);
    h5::write_scalar_attr(root, "n_vars", H5T_NATIVE_INT64, H5T_STD_I64LE, &n, where);
    const double seconds = r.seconds_total;
    h5::write_scalar_attr(root, "seconds_total", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &seconds,
                          where);

    {
        h5::Handle g = h5::create_group(root, "variables", where);
        h5::write_strings(g.get(), "names", r.names, where);
        if (!r.level_labels.empty()) {
            // Discrete data: level labels of variable v are
            // level_labels[level_offsets[v] .. level_offsets[v+1]), code k at offset + k.
            std::vector<std::int64_t> offsets{0};
            std::vector<std::int32_t> cards;
            std::vector<std::string> labels;
            for (const auto& lv : r.level_labels) {
                labels.insert(labels.end(), lv.begin(), lv.end());
                offsets.push_back(static_cast<std::int64_t>(labels.size()));
                cards.push_back(static_cast<std::int32_t>(lv.size()));
            }
            h5::write_array(g.get(), "cardinality", cards, {cards.size()}, where);
            h5::write_array(g.get(), "level_offsets", offsets, {offsets.size()}, where);
            h5::write_strings(g.get(), "level_labels", labels, where);
        }
    }

    layout::write_skeleton(root, r.skeleton, where);

    {
        std::vector<std::int32_t> rows;
        for (const CpdagEdge& e : cpdag_edges(r.cpdag)) {
            rows.push_back(e.a);
            rows.push_back(e.b);
            rows.push_back(static_cast<std::int32_t>(e.kind));
        }
        h5::Handle g = h5::create_group(root, "cpdag", where);
        h5::write_array(g.get(), "edges", rows, {rows.size() / 3, 3}, where);
        if (n <= pc::PcResult::dense_pmax_limit) {
            std::vector<std::int8_t> amat(un * un, 0);
            for (std::int32_t a = 0; a < n; ++a)
                for (std::int32_t b : r.cpdag.neighbours(a))
                    amat[static_cast<std::size_t>(a) * un + b] =
                        static_cast<std::int8_t>(amat_code(r.cpdag, a, b));
            h5::write_array(g.get(), "amat", amat, {un, un}, where);
        }
    }

    layout::write_sepsets(root, r.sepsets, where);

    {
        h5::Handle g = h5::create_group(root, "pmax", where);
        layout::write_pmax_pairs(g.get(), r.pmax, n, where);
        if (n <= pc::PcResult::dense_pmax_limit) {
            std::vector<double> matrix(un * un, std::numeric_limits<double>::quiet_NaN());
            for (std::int64_t i = 0; i < n; ++i) matrix[i * un + i] = -1.0;
            for (const pc::PairP& p : r.pmax) {
                matrix[static_cast<std::size_t>(p.i) * un + p.j] = p.p;
                matrix[static_cast<std::size_t>(p.j) * un + p.i] = p.p;
            }
            h5::write_array(g.get(), "matrix", matrix, {un, un}, where);
        }
    }

    layout::write_levels(root, r.levels, where);

    layout::write_config(root, r.config, where);

    h5::check(H5Fflush(root, H5F_SCOPE_LOCAL), where);
}

}  // namespace cudag::io
