// SPDX-License-Identifier: Apache-2.0
#include "io/dataset_io.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unordered_set>
#include <vector>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "io/hdf5_file.hpp"
#include "io/hdf5_mpio.hpp"
#include "io/output_set.hpp"
#include "io/table_reader.hpp"
#include "io/writers.hpp"

namespace cudag::io {

namespace {

std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

/// Make sure `path` can be opened for reading; throw the usual one-line error if not.
void check_readable(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError("cannot open '" + path + "': Is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open '" + path + "': " + std::strerror(errno));
}

struct Candidate {
    std::string path;
    int rank = 0;
    bool numeric = false;
};

Candidate describe(hid_t file, const std::string& path, const std::string& where) {
    Candidate c{path, -1, false};
    h5::Handle ds =
        h5::check_id(H5Dopen2(file, path.c_str(), H5P_DEFAULT), where + ": cannot open dataset '" + path + "'");
    h5::Handle space = h5::check_id(H5Dget_space(ds.get()), where);
    h5::Handle type = h5::check_id(H5Dget_type(ds.get()), where);
    c.rank = H5Sget_simple_extent_ndims(space.get());
    const H5T_class_t cls = H5Tget_class(type.get());
    c.numeric = cls == H5T_INTEGER || cls == H5T_FLOAT;
    return c;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::string find_only_matrix(hid_t file, const std::string& path) {
    std::vector<std::string> matrices;
    std::vector<std::string> others;
    for (const std::string& p : h5::list_datasets(file)) {
        const Candidate c = describe(file, p, path);
        if (c.rank == 2 && c.numeric)
            matrices.push_back(p);
        else
            others.push_back(p + (c.numeric ? " (" + std::to_string(c.rank) + "-D)" : " (not numeric)"));
    }
    if (matrices.size() == 1) return matrices[0];
    if (matrices.empty())
        throw InputError(
            "'" + path + "' holds no 2-D numeric dataset" +
            (others.empty() ? std::string(" (it holds no dataset at all)") : " (datasets: " + join(others) + ")"));
    throw InputError("'" + path + "' holds several 2-D numeric datasets (" + join(matrices) +
                     "): name one, e.g. --dataset " + matrices[0]);
}

std::vector<std::string> variable_names(hid_t ds, std::int64_t n_vars, const std::string& where) {
    for (const char* attr : {"names", "columns", "variable_names"}) {
        if (!h5::has_attr(ds, attr)) continue;
        std::vector<std::string> names = h5::read_string_attr(ds, attr, where);
        if (static_cast<std::int64_t>(names.size()) != n_vars)
            throw InputError(where + ": attribute '" + attr + "' has " + std::to_string(names.size()) +
                             " names but the dataset has " + std::to_string(n_vars) + " columns");
        std::unordered_set<std::string> seen;
        for (std::size_t c = 0; c < names.size(); ++c) {
            if (names[c].empty())
                throw InputError(where + ": attribute '" + attr +
                                 "' has an empty name for "
                                 "column " +
                                 std::to_string(c + 1));
            if (!seen.insert(names[c]).second)
                throw InputError(where + ": attribute '" + attr + "' repeats the name '" + names[c] + "' (column " +
                                 std::to_string(c + 1) + ")");
        }
        return names;
    }
    std::vector<std::string> names(static_cast<std::size_t>(n_vars));
    for (std::int64_t v = 0; v < n_vars; ++v) names[v] = std::string(1, 'X').append(std::to_string(v + 1));
    return names;
}

/// Rows per block when moving a samples × variables matrix through a row-major buffer.
hsize_t block_rows(std::int64_t n_vars) {
    constexpr std::int64_t block_values = std::int64_t{1} << 22;  // 32 MiB of doubles
    return static_cast<hsize_t>(std::max<std::int64_t>(1, block_values / std::max<std::int64_t>(1, n_vars)));
}

void write_hdf5_dataset(const Dataset& d, const std::string& path) {
    const std::string where = "cannot write '" + path + "'";
    h5::Handle file = h5::create_file(path);
    const hsize_t dims[2] = {static_cast<hsize_t>(d.n_samples), static_cast<hsize_t>(d.n_vars)};
    h5::Handle fspace = h5::check_id(H5Screate_simple(2, dims, nullptr), where);
    h5::Handle ds = h5::check_id(
        H5Dcreate2(file.get(), "data", H5T_IEEE_F64LE, fspace.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), where);
    const hsize_t rows = block_rows(d.n_vars);
    std::vector<double> buf;
    for (hsize_t r0 = 0; r0 < dims[0] && dims[1] > 0; r0 += rows) {
        const hsize_t nr = std::min(rows, dims[0] - r0);
        buf.resize(nr * dims[1]);
        for (hsize_t r = 0; r < nr; ++r)
            for (hsize_t v = 0; v < dims[1]; ++v) buf[r * dims[1] + v] = d.values[v * dims[0] + r0 + r];
        const hsize_t start[2] = {r0, 0};
        const hsize_t count[2] = {nr, dims[1]};
        h5::check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), where);
        h5::Handle mspace = h5::check_id(H5Screate_simple(2, count, nullptr), where);
        h5::check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, buf.data()), where);
    }
    h5::write_string_array_attr(ds.get(), "names", d.names, where);
    h5::check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), where);
}

/// Quote a header name when the reader would otherwise split or alter it.
std::string text_name(const std::string& name, char delim) {
    bool quote = name.empty() || name.front() == ' ' || name.back() == ' ';
    for (char c : name)
        if (c == delim || c == '"' || c == '\n' || c == '\r' || c == '\t' || (delim != ',' && c == ' ')) quote = true;
    if (!quote) return name;
    std::string out = "\"";
    for (char c : name) {
        out.push_back(c);
        if (c == '"') out.push_back('"');
    }
    return out + "\"";
}

void write_text_dataset(const Dataset& d, const std::string& path, char delim) {
    TextFile out(path);
    std::string line;
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        if (v) line.push_back(delim);
        line += text_name(d.names[v], delim);
    }
    line.push_back('\n');
    out.write(line);
    char num[64];
    for (std::int64_t s = 0; s < d.n_samples; ++s) {
        line.clear();
        for (std::int64_t v = 0; v < d.n_vars; ++v) {
            if (v) line.push_back(delim);
            const double x = d.values[v * d.n_samples + s];
            if (std::isnan(x)) continue;  // a missing cell (--missing testwise): empty
            if (d.is_discrete(v)) {
                line += text_name(d.levels[v][static_cast<std::size_t>(x)], delim);
                continue;
            }
            const auto r = std::to_chars(num, num + sizeof num, x);
            line.append(num, r.ptr);
        }
        line.push_back('\n');
        out.write(line);
    }
    out.close();
}

/// read_dataset("-"): a text table from standard input.
Dataset read_stdin(const std::string& dataset_path, const ReadOptions& options) {
    std::string text;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, got);
    if (std::ferror(stdin)) throw InputError(std::string("cannot read ") + kStdinName + ": " + std::strerror(errno));
    // The HDF5 superblock sits at 0 or, after a user block, at 512, 1024, 2048, ...
    static const char sig[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
    for (std::size_t off = 0; off + 8 <= text.size(); off = off == 0 ? 512 : off * 2)
        if (std::memcmp(text.data() + off, sig, 8) == 0)
            throw InputError(std::string(kStdinName) +
                             ": HDF5 input cannot be read from standard input (give the file's "
                             "name to --data)");
    if (!dataset_path.empty())
        throw InputError(std::string(kStdinName) + " is a text table, not HDF5: a dataset path ('" + dataset_path +
                         "') applies only to HDF5 input");
    return parse_table(text, kStdinName, options);
}

}  // namespace

namespace {

/// The 2-D numeric dataset a read takes, opened and checked (shape, type, names).
struct Matrix {
    h5::Handle ds;
    hsize_t dims[2] = {0, 0};
    std::vector<std::string> names;
    std::string where;  ///< "path:/dataset"
};

Matrix open_matrix(hid_t file, const std::string& path, const std::string& dataset_path) {
    std::string dpath = dataset_path;
    if (dpath.empty())
        dpath = find_only_matrix(file, path);
    else if (dpath.front() != '/')
        dpath = "/" + dpath;
    Matrix m;
    m.where = path + ":" + dpath;
    const std::string& where = m.where;
    {
        h5::silence_errors();
        const htri_t exists = H5Lexists(file, dpath.c_str(), H5P_DEFAULT);
        if (exists <= 0) {
            h5::take_error();  // an intermediate group may be missing: same answer
            throw InputError("'" + path + "' has no dataset '" + dpath + "'");
        }
        h5::Handle obj = h5::check_id(H5Oopen(file, dpath.c_str(), H5P_DEFAULT), "cannot open '" + where + "'");
        if (H5Iget_type(obj.get()) != H5I_DATASET) throw InputError("'" + where + "' is a group, not a dataset");
    }
    m.ds = h5::check_id(H5Dopen2(file, dpath.c_str(), H5P_DEFAULT), "cannot open '" + where + "'");
    h5::Handle fspace = h5::check_id(H5Dget_space(m.ds.get()), where);
    h5::Handle type = h5::check_id(H5Dget_type(m.ds.get()), where);
    const int rank = H5Sget_simple_extent_ndims(fspace.get());
    if (rank != 2)
        throw InputError(where + ": dataset has " + std::to_string(rank) + " dimensions; need 2 (samples × variables)");
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        throw InputError(where + ": dataset is not numeric (need an integer or float type)");
    h5::check(H5Sget_simple_extent_dims(fspace.get(), m.dims, nullptr), where);
    if (m.dims[0] == 0) throw InputError(where + ": dataset has no rows (samples)");
    if (m.dims[1] == 0) throw InputError(where + ": dataset has no columns (variables)");
    m.names = variable_names(m.ds.get(), static_cast<std::int64_t>(m.dims[1]), where);
    return m;
}

/// The one-line error for the non-finite value x at (row r, column v), counted from 0.
InputError non_finite(const Matrix& m, double x, hsize_t r, hsize_t v) {
    return InputError(
        m.where + ": " +
        (std::isnan(x) ? "missing value (NaN)" : std::string("non-finite value ") + (x > 0 ? "inf" : "-inf")) +
        " at row " + std::to_string(r + 1) + ", column " + std::to_string(v + 1) + " '" + m.names[v] +
        "' (counted from 1)");
}

}  // namespace

Dataset read_hdf5(const std::string& path, const std::string& dataset_path, bool keep_missing) {
    check_readable(path);
    h5::Handle file = h5::open_file(path);
    const Matrix m = open_matrix(file.get(), path, dataset_path);
    const std::string& where = m.where;
    const hsize_t* dims = m.dims;
    h5::Handle fspace = h5::check_id(H5Dget_space(m.ds.get()), where);

    Dataset d;
    d.n_samples = static_cast<std::int64_t>(dims[0]);
    d.n_vars = static_cast<std::int64_t>(dims[1]);
    d.names = m.names;
    d.values.resize(dims[0] * dims[1]);

    // Read blocks of rows and transpose them into variable-major order.
    const hsize_t rows = block_rows(d.n_vars);
    std::vector<double> buf;
    for (hsize_t r0 = 0; r0 < dims[0]; r0 += rows) {
        const hsize_t nr = std::min(rows, dims[0] - r0);
        buf.resize(nr * dims[1]);
        const hsize_t start[2] = {r0, 0};
        const hsize_t count[2] = {nr, dims[1]};
        h5::check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), where);
        h5::Handle mspace = h5::check_id(H5Screate_simple(2, count, nullptr), where);
        h5::check(H5Dread(m.ds.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, buf.data()),
                  "cannot read '" + where + "'");
        for (hsize_t r = 0; r < nr; ++r) {
            for (hsize_t v = 0; v < dims[1]; ++v) {
                const double x = buf[r * dims[1] + v];
                if (!std::isfinite(x)) {
                    if (!keep_missing || !std::isnan(x)) throw non_finite(m, x, r0 + r, v);
                    ++d.missing;
                }
                d.values[v * dims[0] + r0 + r] = x;
            }
        }
    }
    d.source = where;
    return d;
}

namespace {

herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t* info, void* client) {
    if (info->type != H5L_TYPE_HARD) return 0;
    const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0) {
        h5::take_error();
        return 0;
    }
    if (H5Iget_type(obj) == H5I_DATASET) static_cast<std::vector<std::string>*>(client)->push_back(name);
    H5Oclose(obj);
    return 0;
}

}  // namespace

std::vector<std::string> hdf5_group_datasets(const std::string& path, const std::string& group) {
    if (group.empty() || path == "-") return {};
    check_readable(path);
    if (!h5::has_hdf5_signature(path)) return {};
    h5::Handle file = h5::open_file(path);
    std::string gpath = group;
    if (gpath.front() != '/') gpath.insert(0, 1, '/');
    std::string where = path;
    where += ':';
    where += gpath;
    h5::silence_errors();
    if (gpath != "/" && H5Lexists(file.get(), gpath.c_str(), H5P_DEFAULT) <= 0) {
        h5::take_error();
        std::string msg = "'";
        msg += path;
        msg += "' has no dataset or group '";
        msg += gpath;
        msg += "'";
        throw InputError(msg);
    }
    std::string what = "cannot open '";
    what += where;
    what += "'";
    h5::Handle obj = h5::check_id(H5Oopen(file.get(), gpath.c_str(), H5P_DEFAULT), what);
    if (H5Iget_type(obj.get()) != H5I_GROUP) return {};
    std::vector<std::string> names;
    hsize_t at = 0;
    what = "cannot list the group '";
    what += where;
    what += "'";
    h5::check(H5Literate(obj.get(), H5_INDEX_NAME, H5_ITER_INC, &at, collect_dataset, &names), what);
    if (gpath.back() != '/') gpath += '/';
    for (std::string& n : names) n.insert(0, gpath);
    return names;
}

Dataset read_hdf5_collective(const std::string& path, const std::string& dataset_path, mpi::Communicator& comm,
                             bool keep_missing) {
    check_readable(path);
    h5::Handle file = h5::open_file_mpio(path, false);
    const Matrix m = open_matrix(file.get(), path, dataset_path);
    const hsize_t n_samples = m.dims[0], n_vars = m.dims[1];
    Dataset d;
    d.n_samples = static_cast<std::int64_t>(n_samples);
    d.n_vars = static_cast<std::int64_t>(n_vars);
    d.names = m.names;
    d.values.resize(n_samples * n_vars);

    // Rank r reads the columns [c0, c1) (its share of the file), in blocks of rows so that
    // the row-major buffer stays bounded, and transposes them into its part of the
    // variable-major values; one allgatherv then gives every rank every column.
    const auto size = static_cast<hsize_t>(comm.size()), rank = static_cast<hsize_t>(comm.rank());
    const hsize_t c0 = n_vars * rank / size, c1 = n_vars * (rank + 1) / size, nc = c1 - c0;
    // Every rank makes the same number of (collective) reads: blocks of rows sized for the
    // widest rank's columns.
    const hsize_t widest = n_vars / size + (n_vars % size ? 1 : 0);
    const hsize_t rows = block_rows(static_cast<std::int64_t>(widest));
    const hsize_t steps = (n_samples + rows - 1) / rows;
    h5::Handle xfer = h5::collective_transfer();
    std::vector<double> buf;
    std::int64_t first_bad = -1;  // row * n_vars + column of this rank's first non-finite value
    for (hsize_t step = 0; step < steps; ++step) {
        const hsize_t r0 = step * rows, nr = std::min(rows, n_samples - r0);
        buf.resize(nr * nc);
        h5::transfer_block(m.ds.get(), H5T_NATIVE_DOUBLE, buf.data(), {r0, c0}, {nr, nc}, xfer.get(), false,
                           "cannot read '" + m.where + "'");
        for (hsize_t r = 0; r < nr; ++r)
            for (hsize_t v = 0; v < nc; ++v) {
                const double x = buf[r * nc + v];
                if (keep_missing && std::isnan(x)) {
                    ++d.missing;
                } else if (!std::isfinite(x) && first_bad < 0) {  // rows ascend: the first is the least
                    first_bad = static_cast<std::int64_t>((r0 + r) * n_vars + c0 + v);
                }
                d.values[(c0 + v) * n_samples + r0 + r] = x;
            }
    }
    buf = {};
    xfer.reset();
    file.reset();
    // The first non-finite value in row-major order over every rank's columns, as the
    // serial reader reports it; its owner tells the others what it is (NaN, inf, -inf).
    const std::int64_t none = std::numeric_limits<std::int64_t>::max();
    const std::int64_t bad = comm.allreduce(first_bad < 0 ? none : first_bad, mpi::ReduceOp::Min);
    if (bad != none) {
        const auto r = static_cast<hsize_t>(bad) / n_vars, v = static_cast<hsize_t>(bad) % n_vars;
        std::int32_t kind = -1;  // 0 NaN, 1 inf, 2 -inf
        if (v >= c0 && v < c1) {
            const double x = d.values[v * n_samples + r];
            kind = std::isnan(x) ? 0 : x > 0 ? 1 : 2;
        }
        kind = comm.allreduce(kind, mpi::ReduceOp::Max);
        const double x = kind == 0 ? std::numeric_limits<double>::quiet_NaN()
                                   : (kind == 1 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity();
        throw non_finite(m, x, r, v);
    }
    std::vector<std::size_t> counts(size);
    for (hsize_t q = 0; q < size; ++q)
        counts[q] = static_cast<std::size_t>((n_vars * (q + 1) / size - n_vars * q / size) * n_samples);
    comm.allgatherv(d.values.data() + c0 * n_samples, d.values.data(), counts, mpi::DataType::Float64);
    d.missing = comm.allreduce(d.missing, mpi::ReduceOp::Sum);
    d.source = m.where;
    return d;
}

Dataset read_dataset_collective(const std::string& path, const std::string& dataset_path, TableMode mode,
                                mpi::Communicator& comm) {
    ReadOptions o;
    o.mode = mode;
    return read_dataset_collective(path, dataset_path, o, comm);
}

Dataset read_dataset_collective(const std::string& path, const std::string& dataset_path, const ReadOptions& options,
                                mpi::Communicator& comm) {
    Dataset d = read_hdf5_collective(path, dataset_path, comm, options.keep_missing);
    if (options.mode == TableMode::Labels) discretize(d, d.source);
    return d;
}

Dataset read_dataset(const std::string& path, const std::string& dataset_path, TableMode mode,
                     const std::vector<std::string>& na_values) {
    ReadOptions o;
    o.mode = mode;
    o.na_values = na_values;
    return read_dataset(path, dataset_path, o);
}

Dataset read_dataset(const std::string& path, const std::string& dataset_path, const ReadOptions& options) {
    if (path == "-") return read_stdin(dataset_path, options);
    check_readable(path);
    if (h5::has_hdf5_signature(path)) {
        if (!options.na_values.empty())
            throw InputError("--na-values applies to text tables; '" + path + "' is HDF5 (its values are numbers)");
        Dataset d = read_hdf5(path, dataset_path, options.keep_missing);
        if (options.mode == TableMode::Labels) discretize(d, d.source);
        return d;
    }
    if (!dataset_path.empty())
        throw InputError("'" + path + "' is a text table, not HDF5: a dataset path ('" + dataset_path +
                         "') applies only to HDF5 input");
    return read_table(path, options);
}

Dataset share_dataset(mpi::Communicator& comm, const std::function<Dataset()>& read) {
    Dataset d;
    if (comm.size() == 1) return read();
    mpi::run_agreed(comm, [&] {
        if (comm.rank() == 0) d = read();
    });
    // Header: shape, source, names, level labels, as (length, bytes) strings.
    std::vector<std::byte> blob;
    if (comm.rank() == 0) {
        ByteWriter w;
        const auto put_string = [&w](const std::string& s) { w.put_vector(std::vector<char>(s.begin(), s.end())); };
        w.put(d.n_samples);
        w.put(d.n_vars);
        w.put(d.missing);
        put_string(d.source);
        for (const std::string& nm : d.names) put_string(nm);
        w.put(static_cast<std::int64_t>(d.levels.size()));
        for (const auto& lv : d.levels) {
            w.put(static_cast<std::int64_t>(lv.size()));
            for (const std::string& l : lv) put_string(l);
        }
        blob = w.take();
    }
    comm.bcast_blob(blob, 0);
    if (comm.rank() != 0) {
        ByteReader r(blob);
        const auto get_string = [&r] {
            const auto c = r.get_vector<char>();
            return std::string(c.begin(), c.end());
        };
        d.n_samples = r.get<std::int64_t>();
        d.n_vars = r.get<std::int64_t>();
        d.missing = r.get<std::int64_t>();
        d.source = get_string();
        d.names.resize(static_cast<std::size_t>(d.n_vars));
        for (std::string& nm : d.names) nm = get_string();
        d.levels.resize(static_cast<std::size_t>(r.get<std::int64_t>()));
        for (auto& lv : d.levels) {
            lv.resize(static_cast<std::size_t>(r.get<std::int64_t>()));
            for (std::string& l : lv) l = get_string();
        }
        d.values.resize(static_cast<std::size_t>(d.n_samples * d.n_vars));
    }
    blob = {};
    comm.bcast(std::span<double>(d.values), 0);
    return d;
}

void write_dataset(const Dataset& d, const std::string& path, OutputSet& outputs) {
    CUDAG_ASSERT(static_cast<std::int64_t>(d.names.size()) == d.n_vars);
    CUDAG_ASSERT(static_cast<std::int64_t>(d.values.size()) == d.n_vars * d.n_samples);
    if (path == "-") {
        write_text_dataset(d, "-", ',');
        return;
    }
    const std::string ext = lower_extension(path);
    char delim = 0;
    bool hdf5 = false;
    if (ext == ".h5" || ext == ".hdf5")
        hdf5 = true;
    else if (ext == ".csv")
        delim = ',';
    else if (ext == ".tsv" || ext == ".txt")
        delim = '\t';
    else
        throw InputError("cannot tell the format of '" + path +
                         "' from its extension: use .csv, .tsv, .txt, .h5 or .hdf5");
    const std::string temp = outputs.temp_for(path);
    if (hdf5)
        write_hdf5_dataset(d, temp);
    else
        write_text_dataset(d, temp, delim);
}

void write_dataset(const Dataset& d, const std::string& path) {
    OutputSet outputs;
    write_dataset(d, path, outputs);
    if (path != "-") outputs.commit();
}

}  // namespace cudag::io
