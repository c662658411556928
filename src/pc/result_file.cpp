// SPDX-License-Identifier: Apache-2.0
#include "pc/result_file.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_file.hpp"
#include "io/hdf5_mpio.hpp"
#include "io/result_formats.hpp"
#include "io/writers.hpp"
#include "skeleton/layout.hpp"

namespace cudag::pc {

namespace h5 = io::h5;
using io::amat_code;
using io::cpdag_edges;
using io::CpdagEdge;
using io::pc_result_format;

namespace {

/// /bootstrap: the frequency table of a bootstrap run (PcResult::bootstrap).
void write_bootstrap(hid_t root, const bootstrap::Table& t, const std::string& where) {
    h5::Handle g = h5::create_group(root, "bootstrap", where);
    const std::int64_t replicates = t.replicates;
    h5::write_scalar_attr(g.get(), "replicates", H5T_NATIVE_INT64, H5T_STD_I64LE, &replicates, where);
    h5::write_string_attr(g.get(), "resample", t.resample, where);
    const std::uint64_t seed = t.seed;
    h5::write_scalar_attr(g.get(), "seed", H5T_NATIVE_UINT64, H5T_STD_U64LE, &seed, where);
    const double consensus = t.consensus;
    h5::write_scalar_attr(g.get(), "consensus", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &consensus, where);
    // A PAG bootstrap's kinds: its edge strings, read from i to j (core/pag.hpp's edge_kinds()).
    std::vector<std::string> kinds{"none", "i-->j", "j-->i", "i---j", "i<->j"};
    if (t.pag) {
        kinds.resize(1);
        kinds.insert(kinds.end(), edge_kinds().begin(), edge_kinds().end());
    }
    h5::write_string_array_attr(g.get(), "kinds", kinds, where);
    const auto k = static_cast<hsize_t>(t.size());
    const auto cols = static_cast<hsize_t>(t.columns());
    h5::write_array(g.get(), "pairs", t.pairs, {k, 2}, where);
    h5::write_array(g.get(), "counts", t.counts, {k, cols}, where);
    std::vector<double> frequency(t.counts.size()), adjacency(t.size());
    const double b = static_cast<double>(t.replicates);
    for (std::size_t e = 0; e < t.counts.size(); ++e) frequency[e] = static_cast<double>(t.counts[e]) / b;
    for (std::size_t e = 0; e < t.size(); ++e)
        adjacency[e] = static_cast<double>(t.replicates - t.counts[t.columns() * e]) / b;
    h5::write_array(g.get(), "frequency", frequency, {k, cols}, where);
    h5::write_array(g.get(), "adjacency", adjacency, {k}, where);
}

/// Everything write_result_hdf5 writes; with `parts`, the record datasets (separating
/// sets, pMax pairs and matrix) are created at their final sizes but left to the ranks.
void write_head(const pc::PcResult& r, hid_t root, const std::string& where,
                const skeleton::layout::RecordParts* parts) {
    StepTrace trace;  // CUDAG_TRACE: the steps' host times
    trace.start();
    const auto n = static_cast<std::int64_t>(r.names.size());
    CUDAG_ASSERT(r.skeleton.n() == n);
    CUDAG_ASSERT(r.cpdag.n() == n);
    const auto un = static_cast<hsize_t>(n);

    // Root attributes: provenance and sizes.
    h5::write_string_attr(root, "cudag_version", CUDAG_VERSION, where);
    h5::write_string_attr(root, "format", pc_result_format, where);
    const std::int64_t n_samples = r.n_samples;
    h5::write_scalar_attr(root, "n_samples", H5T_NATIVE_INT64, H5T_STD_I64LE, &n_samples, where);
    h5::write_scalar_attr(root, "n_vars", H5T_NATIVE_INT64, H5T_STD_I64LE, &n, where);
    const double seconds = r.seconds_total;
    h5::write_scalar_attr(root, "seconds_total", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &seconds, where);

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

    trace.mark("head");
    skeleton::layout::write_skeleton(root, r.skeleton, where);
    trace.mark("skeleton");

    h5::write_string_attr(root, "kind", r.pag ? "pag" : "cpdag", where);
    if (r.pag) {
        // The PAG: one row per edge a < b (a, b, mark at a, mark at b; pcalg's amat.pag
        // codes 1 circle, 2 arrowhead, 3 tail) and, for small n, pcalg's amat.pag itself
        // (amat[a, b] = the mark at b).
        const Pag& pag = *r.pag;
        CUDAG_ASSERT(pag.n() == n);
        std::vector<std::int32_t> rows;
        for (std::int32_t a = 0; a < pag.n(); ++a)
            for (const std::int32_t b : pag.neighbours(a))
                if (a < b) rows.insert(rows.end(), {a, b, pag(b, a), pag(a, b)});
        h5::Handle g = h5::create_group(root, "pag", where);
        h5::write_array(g.get(), "edges", rows, {rows.size() / 4, 4}, where);
        if (n <= skeleton::dense_pmax_limit) {
            std::vector<std::int8_t> amat(un * un, 0);
            for (std::int32_t a = 0; a < n; ++a)
                for (const std::int32_t b : pag.neighbours(a))
                    amat[static_cast<std::size_t>(a) * un + b] = static_cast<std::int8_t>(pag(a, b));
            h5::write_array(g.get(), "amat", amat, {un, un}, where);
        }
    } else {
        std::vector<std::int32_t> rows;
        for (const CpdagEdge& e : cpdag_edges(r.cpdag)) {
            rows.push_back(e.a);
            rows.push_back(e.b);
            rows.push_back(static_cast<std::int32_t>(e.kind));
        }
        h5::Handle g = h5::create_group(root, "cpdag", where);
        h5::write_array(g.get(), "edges", rows, {rows.size() / 3, 3}, where);
        if (n <= skeleton::dense_pmax_limit) {
            std::vector<std::int8_t> amat(un * un, 0);
            for (std::int32_t a = 0; a < n; ++a)
                for (std::int32_t b : r.cpdag.neighbours(a))
                    amat[static_cast<std::size_t>(a) * un + b] = static_cast<std::int8_t>(amat_code(r.cpdag, a, b));
            h5::write_array(g.get(), "amat", amat, {un, un}, where);
        }
    }

    trace.mark("cpdag");
    if (parts)
        skeleton::layout::create_sepsets(root, *parts, where);
    else
        skeleton::layout::write_sepsets(root, r.sepsets, where);
    trace.mark("sepsets");

    {
        h5::Handle g = h5::create_group(root, "pmax", where);
        if (parts) {
            skeleton::layout::create_pmax_pairs(g.get(), *parts, where);
            if (n <= skeleton::dense_pmax_limit)
                h5::create_dataset(g.get(), "matrix", h5::TypeOf<double>::file(), {un, un}, where);
        } else {
            skeleton::layout::write_pmax_pairs(g.get(), r.pmax, n, where);
        }
        if (!parts && n <= skeleton::dense_pmax_limit) {
            std::vector<double> matrix(un * un, std::numeric_limits<double>::quiet_NaN());
            for (std::int64_t i = 0; i < n; ++i) matrix[i * un + i] = -1.0;
            for (const skeleton::PairP& p : r.pmax) {
                matrix[static_cast<std::size_t>(p.i) * un + p.j] = p.p;
                matrix[static_cast<std::size_t>(p.j) * un + p.i] = p.p;
            }
            h5::write_array(g.get(), "matrix", matrix, {un, un}, where);
        }
    }

    trace.mark("pmax");
    skeleton::layout::write_levels(root, r.levels, where);

    if (r.bootstrap) write_bootstrap(root, *r.bootstrap, where);

    io::h5::write_config(root, r.config, where);
    trace.mark("levels+config");
    trace.print("result file");
}

/// The dense pMax matrix's entries that this rank's rows [lo, hi) decide, written into
/// the n x n dataset `ds` (collective). Entry (a, b) belongs to the rank holding row
/// min(a, b): rows [lo, hi) from column lo on, and columns [lo, hi) below row hi (the
/// union of two hyperslabs, which HDF5 walks row by row).
void write_pmax_matrix_part(hid_t ds, std::span<const skeleton::PairP> pmax, std::int64_t n, std::int64_t lo,
                            std::int64_t hi, hid_t xfer, const std::string& where) {
    const std::string what = where + ": cannot write /pmax/matrix";
    h5::Handle fspace = h5::check_id(H5Dget_space(ds), what);
    const auto un = static_cast<hsize_t>(n), ulo = static_cast<hsize_t>(lo), uhi = static_cast<hsize_t>(hi);
    const hsize_t w = uhi - ulo;
    const hsize_t count = w * (un - ulo) + (un - uhi) * w;
    std::vector<double> buf(count, std::numeric_limits<double>::quiet_NaN());
    // Where entry (a, b) of the union lies in buf.
    const auto at = [&](hsize_t a, hsize_t b) -> double& {
        if (a < uhi) return buf[(a - ulo) * (un - ulo) + (b - ulo)];
        return buf[w * (un - ulo) + (a - uhi) * w + (b - ulo)];
    };
    for (std::int64_t i = lo; i < hi; ++i) at(static_cast<hsize_t>(i), static_cast<hsize_t>(i)) = -1.0;
    for (const skeleton::PairP& p : pmax) {
        at(static_cast<hsize_t>(p.i), static_cast<hsize_t>(p.j)) = p.p;
        at(static_cast<hsize_t>(p.j), static_cast<hsize_t>(p.i)) = p.p;
    }
    if (count == 0) {
        h5::check(H5Sselect_none(fspace.get()), what);
    } else {
        const hsize_t s1[2] = {ulo, ulo}, c1[2] = {w, un - ulo};
        h5::check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, s1, nullptr, c1, nullptr), what);
        if (uhi < un) {
            const hsize_t s2[2] = {uhi, ulo}, c2[2] = {un - uhi, w};
            h5::check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_OR, s2, nullptr, c2, nullptr), what);
        }
    }
    const hsize_t mdim = std::max<hsize_t>(count, 1);
    h5::Handle mspace = h5::check_id(H5Screate_simple(1, &mdim, nullptr), what);
    if (count == 0) h5::check(H5Sselect_none(mspace.get()), what);
    h5::check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), xfer, buf.data()), what);
}

}  // namespace

void write_result_hdf5(const pc::PcResult& r, const std::string& path) {
    const std::string where = "cannot write '" + path + "'";
    h5::Handle file = h5::create_file(path);
    write_head(r, file.get(), where, nullptr);
    h5::check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), where);
}

void write_result_hdf5(const pc::PcResult& r, const std::string& path, mpi::Communicator& comm) {
    const std::string where = "cannot write '" + path + "'";
    const auto n = static_cast<std::int64_t>(r.names.size());
    const std::int64_t lo = r.record_rows.all() ? 0 : r.record_rows.begin;
    const std::int64_t hi = r.record_rows.all() ? n : r.record_rows.end;
    const skeleton::layout::RecordParts parts = skeleton::layout::record_parts(r.sepsets, r.pmax.size(), comm);
    mpi::run_agreed(comm, [&] {
        if (comm.rank() != 0) return;
        h5::Handle file = h5::create_file(path);
        write_head(r, file.get(), where, &parts);
        h5::check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), where);
    });
    mpi::run_agreed(comm, [&] {
        h5::Handle file = h5::open_file_mpio(path, true);
        h5::Handle xfer = h5::collective_transfer();
        skeleton::layout::write_records_part(file.get(), r.sepsets, r.pmax, parts, xfer.get(), where);
        if (n <= skeleton::dense_pmax_limit) {
            h5::Handle ds = h5::check_id(H5Dopen2(file.get(), "pmax/matrix", H5P_DEFAULT), where);
            write_pmax_matrix_part(ds.get(), r.pmax, n, lo, hi, xfer.get(), where);
        }
    });
}

}  // namespace cudag::pc
