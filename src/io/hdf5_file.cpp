// SPDX-License-Identifier: Apache-2.0
#include "io/hdf5_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>

#include "core/error.hpp"

namespace cudag::io::h5 {

namespace {

/// Product of the dimensions, 1 for a scalar shape.
hsize_t element_count(const std::vector<hsize_t>& dims) {
    hsize_t n = 1;
    for (hsize_t d : dims) n *= d;
    return n;
}

/// A UTF-8 variable-length string type (what h5py maps to Python str).
Handle vlen_utf8_type(const std::string& where) {
    Handle t = check_id(H5Tcopy(H5T_C_S1), where + ": cannot create a string type");
    check(H5Tset_size(t.get(), H5T_VARIABLE), where + ": cannot create a string type");
    check(H5Tset_cset(t.get(), H5T_CSET_UTF8), where + ": cannot create a string type");
    return t;
}

Handle simple_space(const std::vector<hsize_t>& dims, const std::string& where) {
    if (dims.empty()) return check_id(H5Screate(H5S_SCALAR), where + ": cannot create dataspace");
    return check_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                    where + ": cannot create dataspace");
}

std::vector<const char*> c_strings(const std::vector<std::string>& values) {
    std::vector<const char*> ptrs;
    ptrs.reserve(values.size());
    for (const std::string& s : values) ptrs.push_back(s.c_str());
    return ptrs;
}

/// ChecksummedWrites alive on this thread.
thread_local int checksummed_writes = 0;

/// A chunk of about this many bytes at most (whole rows) for a checksummed dataset.
constexpr hsize_t kChecksumChunkBytes = hsize_t{1} << 20;

/// The creation list of a dataset of `file_type` and shape `dims`: chunked with Fletcher32
/// while a ChecksummedWrites lives and the dataset holds fixed-size elements (chunks of
/// whole rows, about kChecksumChunkBytes; a row over HDF5's 4 GiB chunk limit stays
/// unchecked), else HDF5's default. `early`: storage allocated at creation, not filled
/// unless checksummed (the checksum of unwritten chunks must be valid).
Handle dataset_plist(hid_t file_type, const std::vector<hsize_t>& dims, bool early, const std::string& what) {
    Handle dcpl = check_id(H5Pcreate(H5P_DATASET_CREATE), what);
    hsize_t row_bytes = H5Tget_size(file_type);
    for (std::size_t d = 1; d < dims.size(); ++d) row_bytes *= dims[d];
    const bool checksum = checksummed_writes > 0 && !dims.empty() && element_count(dims) > 0 &&
                          H5Tis_variable_str(file_type) <= 0 && row_bytes < (hsize_t{1} << 32) - 1;
    if (checksum) {
        std::vector<hsize_t> chunk = dims;
        chunk[0] = std::clamp<hsize_t>(kChecksumChunkBytes / row_bytes, 1, dims[0]);
        check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), what);
        check(H5Pset_fletcher32(dcpl.get()), what);
    }
    if (early) {
        check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), what);
        if (!checksum) check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), what);
    }
    return dcpl;
}

herr_t innermost_error(unsigned n, const H5E_error2_t* err, void* client) {
    auto* out = static_cast<std::string*>(client);
    if (n == 0 && err && err->desc) *out = err->desc;
    return 0;
}

}  // namespace

void Handle::reset() {
    if (id_ >= 0) {
        // H5Idec_ref closes the object when the count reaches zero, for any id type.
        H5E_BEGIN_TRY { H5Idec_ref(id_); }
        H5E_END_TRY;
        id_ = H5I_INVALID_HID;
    }
}

ChecksummedWrites::ChecksummedWrites() { ++checksummed_writes; }
ChecksummedWrites::~ChecksummedWrites() { --checksummed_writes; }

void silence_errors() {
    static std::once_flag once;
    std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::string take_error() {
    std::string msg;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &msg);
    H5Eclear2(H5E_DEFAULT);
    // The POSIX driver's write failure is a long record ("file write failed: time = ...,
    // errno = 28, error message = 'No space left on device', buf = ..."): keep the reason.
    const std::string key = "error message = '";
    const std::size_t at = msg.find(key);
    if (msg.rfind("file write failed", 0) == 0 && at != std::string::npos) {
        const std::size_t end = msg.find('\'', at + key.size());
        if (end != std::string::npos) msg = msg.substr(at + key.size(), end - at - key.size());
    }
    return msg;
}

Handle check_id(hid_t id, const std::string& what) {
    if (id < 0) {
        const std::string detail = take_error();
        throw InputError(detail.empty() ? what : what + ": " + detail);
    }
    return Handle(id);
}

void check(herr_t status, const std::string& what) {
    if (status < 0) {
        const std::string detail = take_error();
        throw InputError(detail.empty() ? what : what + ": " + detail);
    }
}

bool has_hdf5_signature(const std::string& path) {
    static const char sig[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    // The superblock sits at 0 or, after a user block, at 512, 1024, 2048, ...
    for (std::streamoff off = 0; off + 8 <= size; off = (off == 0) ? 512 : off * 2) {
        char buf[8];
        in.seekg(off);
        if (!in.read(buf, 8)) return false;
        if (std::memcmp(buf, sig, 8) == 0) return true;
        if (off >= (std::streamoff{1} << 30)) break;
    }
    return false;
}

Handle create_file(const std::string& path) {
    silence_errors();
    const std::string where = "cannot create HDF5 file '" + path + "'";
    Handle fapl = check_id(H5Pcreate(H5P_FILE_ACCESS), where);
    check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), where);
    return check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), where);
}

Handle open_file(const std::string& path) {
    silence_errors();
    return check_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open '" + path + "' as HDF5");
}

Handle create_group(hid_t loc, const std::string& name, const std::string& where) {
    const std::string what = where + ": cannot create group '" + name + "'";
    Handle gcpl = check_id(H5Pcreate(H5P_GROUP_CREATE), what);
    check(H5Pset_attr_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), what);
    return check_id(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), what);
}

void write_raw(hid_t loc, const std::string& name, hid_t mem_type, hid_t file_type, const void* data,
               const std::vector<hsize_t>& dims, const std::string& where) {
    const std::string what = where + ": cannot write dataset '" + name + "'";
    Handle space = simple_space(dims, what);
    Handle dcpl = dataset_plist(file_type, dims, false, what);
    Handle ds =
        check_id(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), what);
    if (element_count(dims) == 0) return;
    check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what);
}

Handle create_dataset(hid_t loc, const std::string& name, hid_t file_type, const std::vector<hsize_t>& dims,
                      const std::string& where) {
    const std::string what = where + ": cannot create dataset '" + name + "'";
    Handle space = simple_space(dims, what);
    Handle dcpl = dataset_plist(file_type, dims, true, what);
    return check_id(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), what);
}

void transfer_block(hid_t ds, hid_t mem_type, void* data, const std::vector<hsize_t>& start,
                    const std::vector<hsize_t>& count, hid_t xfer, bool write, const std::string& what) {
    Handle fspace = check_id(H5Dget_space(ds), what);
    // An empty dataset has no storage to address: every rank sees its extent, so all skip.
    if (H5Sget_simple_extent_npoints(fspace.get()) == 0) return;
    Handle mspace;
    if (element_count(count) == 0) {
        // Nothing to move on this rank: empty selections, same call.
        check(H5Sselect_none(fspace.get()), what);
        mspace = check_id(H5Scopy(fspace.get()), what);
        check(H5Sselect_none(mspace.get()), what);
    } else {
        check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr), what);
        mspace = simple_space(count, what);
    }
    if (write)
        check(H5Dwrite(ds, mem_type, mspace.get(), fspace.get(), xfer, data), what);
    else
        check(H5Dread(ds, mem_type, mspace.get(), fspace.get(), xfer, data), what);
}

std::vector<hsize_t> dataset_shape(hid_t loc, const std::string& name, const std::string& where) {
    const std::string what = where + ": cannot read dataset '" + name + "'";
    Handle ds = check_id(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), what);
    Handle space = check_id(H5Dget_space(ds.get()), what);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) check(-1, what);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    if (rank > 0) check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), what);
    return dims;
}

void read_raw(hid_t loc, const std::string& name, hid_t mem_type, void* data, const std::string& where) {
    const std::string what = where + ": cannot read dataset '" + name + "'";
    Handle ds = check_id(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), what);
    check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what);
}

void write_strings(hid_t loc, const std::string& name, const std::vector<std::string>& values,
                   const std::string& where) {
    Handle type = vlen_utf8_type(where);
    const std::vector<const char*> ptrs = c_strings(values);
    write_raw(loc, name, type.get(), type.get(), ptrs.empty() ? nullptr : ptrs.data(),
              {static_cast<hsize_t>(values.size())}, where);
}

namespace {

void write_attr(hid_t obj, const std::string& name, hid_t mem_type, hid_t file_type, const void* data,
                const std::vector<hsize_t>& dims, const std::string& where) {
    const std::string what = where + ": cannot write attribute '" + name + "'";
    Handle space = simple_space(dims, what);
    Handle attr = check_id(H5Acreate2(obj, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), what);
    if (element_count(dims) == 0) return;
    check(H5Awrite(attr.get(), mem_type, data), what);
}

}  // namespace

void write_string_attr(hid_t obj, const std::string& name, const std::string& value, const std::string& where) {
    Handle type = vlen_utf8_type(where);
    const char* p = value.c_str();
    write_attr(obj, name, type.get(), type.get(), &p, {}, where);
}

void write_string_array_attr(hid_t obj, const std::string& name, const std::vector<std::string>& values,
                             const std::string& where) {
    Handle type = vlen_utf8_type(where);
    const std::vector<const char*> ptrs = c_strings(values);
    write_attr(obj, name, type.get(), type.get(), ptrs.empty() ? nullptr : ptrs.data(),
               {static_cast<hsize_t>(values.size())}, where);
}

void write_scalar_attr(hid_t obj, const std::string& name, hid_t mem_type, hid_t file_type, const void* value,
                       const std::string& where) {
    write_attr(obj, name, mem_type, file_type, value, {}, where);
}

bool has_attr(hid_t obj, const std::string& name) {
    silence_errors();
    const htri_t r = H5Aexists(obj, name.c_str());
    if (r < 0) take_error();
    return r > 0;
}

namespace {

/// The strings of an attribute or dataset with file type `ftype` and dataspace `space`;
/// `read(mem_type, buffer)` reads all elements converted to mem_type. `object` names it
/// ("attribute 'x'", "dataset 'y'") in errors.
std::vector<std::string> read_strings_of(hid_t ftype, hid_t space, const std::string& object,
                                         const std::function<herr_t(hid_t, void*)>& read, const std::string& where) {
    const std::string what = where + ": cannot read " + object;
    if (H5Tget_class(ftype) != H5T_STRING) throw InputError(where + ": " + object + " does not hold strings");
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0 || rank > 1) throw InputError(where + ": " + object + " must be a 1-D list of strings");
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0) check(-1, what);
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(n));
    if (n == 0) return out;

    const H5T_cset_t cset = H5Tget_cset(ftype);
    if (H5Tis_variable_str(ftype) > 0) {
        Handle mtype = vlen_utf8_type(what);
        check(H5Tset_cset(mtype.get(), cset), what);
        std::vector<char*> ptrs(static_cast<std::size_t>(n), nullptr);
        check(read(mtype.get(), ptrs.data()), what);
        for (char* p : ptrs) out.emplace_back(p ? p : "");
            // Return the strings HDF5 allocated for us.
#if H5_VERSION_GE(1, 12, 0)
        H5Treclaim(mtype.get(), space, H5P_DEFAULT, ptrs.data());
#else
        H5Dvlen_reclaim(mtype.get(), space, H5P_DEFAULT, ptrs.data());
#endif
    } else {
        const std::size_t size = H5Tget_size(ftype);
        if (size == 0) check(-1, what);
        Handle mtype = check_id(H5Tcopy(H5T_C_S1), what);
        check(H5Tset_size(mtype.get(), size), what);
        check(H5Tset_cset(mtype.get(), cset), what);
        check(H5Tset_strpad(mtype.get(), H5T_STR_NULLPAD), what);
        std::vector<char> buf(size * static_cast<std::size_t>(n), '\0');
        check(read(mtype.get(), buf.data()), what);
        const bool space_pad = H5Tget_strpad(ftype) == H5T_STR_SPACEPAD;
        for (hssize_t k = 0; k < n; ++k) {
            const char* p = buf.data() + static_cast<std::size_t>(k) * size;
            std::size_t len = strnlen(p, size);
            if (space_pad)
                while (len > 0 && p[len - 1] == ' ') --len;
            out.emplace_back(p, len);
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> read_string_attr(hid_t obj, const std::string& name, const std::string& where) {
    const std::string object = "attribute '" + name + "'";
    const std::string what = where + ": cannot read " + object;
    Handle attr = check_id(H5Aopen(obj, name.c_str(), H5P_DEFAULT), what);
    Handle ftype = check_id(H5Aget_type(attr.get()), what);
    Handle space = check_id(H5Aget_space(attr.get()), what);
    return read_strings_of(
        ftype.get(), space.get(), object, [&](hid_t mtype, void* buf) { return H5Aread(attr.get(), mtype, buf); },
        where);
}

std::vector<std::string> read_strings(hid_t loc, const std::string& name, const std::string& where) {
    const std::string object = "dataset '" + name + "'";
    const std::string what = where + ": cannot read " + object;
    Handle ds = check_id(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), what);
    Handle ftype = check_id(H5Dget_type(ds.get()), what);
    Handle space = check_id(H5Dget_space(ds.get()), what);
    return read_strings_of(
        ftype.get(), space.get(), object,
        [&](hid_t mtype, void* buf) { return H5Dread(ds.get(), mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); }, where);
}

namespace {

struct VisitState {
    std::vector<std::string> paths;
};

herr_t visit_link(hid_t group, const char* name, const H5L_info_t* info, void* client) {
    if (info->type != H5L_TYPE_HARD) return 0;
    auto* state = static_cast<VisitState*>(client);
    const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0) {
        take_error();
        return 0;
    }
    if (H5Iget_type(obj) == H5I_DATASET) state->paths.push_back(std::string("/") + name);
    H5Oclose(obj);
    return 0;
}

}  // namespace

std::vector<std::string> list_datasets(hid_t file) {
    silence_errors();
    VisitState state;
    check(H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit_link, &state), "cannot list the objects of an HDF5 file");
    return state.paths;
}

std::string sanitize_attr_name(const std::string& key) {
    std::string out = key.empty() ? "_" : key;
    for (char& c : out) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) c = '_';
    }
    return out;
}

void write_config(hid_t root, const std::vector<std::pair<std::string, std::string>>& config,
                  const std::string& where) {
    Handle g = create_group(root, "config", where);
    std::set<std::string> used;
    for (const auto& [key, value] : config) {
        const std::string base = sanitize_attr_name(key);
        std::string name = base;
        for (int k = 2; !used.insert(name).second; ++k) name = base + "_" + std::to_string(k);
        write_string_attr(g.get(), name, value, where);
    }
}

}  // namespace cudag::io::h5
