// SPDX-License-Identifier: Apache-2.0
// Thin RAII and checked-call layer over the HDF5 C API (H5F/H5G/H5D/H5S/H5T/H5A/H5P).
// Every failing call throws cudag::InputError naming the file and object, with the
// most specific message from HDF5's error stack; the stack itself is never printed.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudag::io::h5 {

/// Owning reference to one HDF5 identifier (file, group, dataset, dataspace, datatype,
/// attribute or property list); drops it with H5Idec_ref on destruction. Move-only.
class Handle {
public:
    Handle() = default;
    /// Takes ownership of `id` (an invalid, negative id is allowed and means "none").
    explicit Handle(hid_t id) : id_(id) {}
    ~Handle() { reset(); }
    Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = H5I_INVALID_HID; }
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = o.id_;
            o.id_ = H5I_INVALID_HID;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    /// The identifier, still owned by this handle.
    hid_t get() const { return id_; }
    /// Whether an identifier is held.
    bool valid() const { return id_ >= 0; }
    /// Drop the reference now (no-op when invalid).
    void reset();

private:
    hid_t id_ = H5I_INVALID_HID;
};

/// Turn off HDF5's automatic printing of its error stack (idempotent). Every function
/// here calls it; cudag reports HDF5 failures as exceptions instead.
void silence_errors();

/// The most specific description on HDF5's current error stack (or "" when empty),
/// then clears the stack.
std::string take_error();

/// Throw InputError("<what>: <HDF5 detail>") when id < 0, else return it as a Handle.
Handle check_id(hid_t id, const std::string& what);
/// Throw InputError("<what>: <HDF5 detail>") when status < 0.
void check(herr_t status, const std::string& what);

/// Whether the file at `path` carries the HDF5 signature at offset 0 or at a user-block
/// offset (512, 1024, ...). False when unreadable.
bool has_hdf5_signature(const std::string& path);

/// While one lives on a thread, the datasets write_raw and create_dataset create there
/// (with at least one element, of a fixed-size type) are chunked and carry HDF5's
/// Fletcher32 checksum, checked by HDF5 on every read: a flipped bit fails the read.
/// Checkpoints use it (io/checkpoint_file.hpp). Nests; not copyable.
class ChecksummedWrites {
public:
    ChecksummedWrites();
    ~ChecksummedWrites();
    ChecksummedWrites(const ChecksummedWrites&) = delete;
    ChecksummedWrites& operator=(const ChecksummedWrites&) = delete;
};

/// Create (truncate) `path` for writing. Uses the 1.8 object formats as the lower
/// bound so that attributes over 64 KiB (e.g. 20,000 variable names) are allowed.
Handle create_file(const std::string& path);
/// Open an existing file read-only; `path` is named in the error when it fails.
Handle open_file(const std::string& path);

/// Create group `name` below `loc`, tracking attribute creation order.
Handle create_group(hid_t loc, const std::string& name, const std::string& where);

/// HDF5 memory (native) and file (little-endian standard) types for T.
template <class T>
struct TypeOf;
template <>
struct TypeOf<std::int8_t> {
    static hid_t mem() { return H5T_NATIVE_INT8; }
    static hid_t file() { return H5T_STD_I8LE; }
};
template <>
struct TypeOf<std::int32_t> {
    static hid_t mem() { return H5T_NATIVE_INT32; }
    static hid_t file() { return H5T_STD_I32LE; }
};
template <>
struct TypeOf<std::int64_t> {
    static hid_t mem() { return H5T_NATIVE_INT64; }
    static hid_t file() { return H5T_STD_I64LE; }
};
template <>
struct TypeOf<double> {
    static hid_t mem() { return H5T_NATIVE_DOUBLE; }
    static hid_t file() { return H5T_IEEE_F64LE; }
};

/// Write a new dataset `name` below `loc` with shape `dims` (row-major, C order) from
/// host memory `data` (prod(dims) elements of type mem_type). Zero-size shapes are
/// allowed: the dataset is created empty and `data` may be null. `where` names the
/// file in error messages.
void write_raw(hid_t loc, const std::string& name, hid_t mem_type, hid_t file_type, const void* data,
               const std::vector<hsize_t>& dims, const std::string& where);

/// Typed front end of write_raw: `values.size()` must equal prod(dims).
template <class T>
void write_array(hid_t loc, const std::string& name, const std::vector<T>& values, const std::vector<hsize_t>& dims,
                 const std::string& where) {
    write_raw(loc, name, TypeOf<T>::mem(), TypeOf<T>::file(), values.empty() ? nullptr : values.data(), dims, where);
}

/// Create dataset `name` below `loc` with shape `dims` and no data yet: its storage is
/// allocated now (contiguous and unfilled; chunked and filled under ChecksummedWrites),
/// so that ranks can then write parts of it through the MPI-IO driver (write_block). `where` names the file in error
/// messages.
Handle create_dataset(hid_t loc, const std::string& name, hid_t file_type, const std::vector<hsize_t>& dims,
                      const std::string& where);

/// Move the block start × count (row-major, same rank as the dataset) of dataset `ds`
/// to or from host memory `data` (prod(count) elements of `mem_type`, row-major): a write
/// when `write`, else a read. A zero-size block selects nothing (a rank's part of a
/// collective transfer may be empty); an empty dataset is left alone (no call). `xfer`: a transfer list
/// (collective_transfer() in io/hdf5_mpio.hpp) or H5P_DEFAULT.
void transfer_block(hid_t ds, hid_t mem_type, void* data, const std::vector<hsize_t>& start,
                    const std::vector<hsize_t>& count, hid_t xfer, bool write, const std::string& what);

/// Shape of dataset `name` below `loc` (empty for a scalar).
std::vector<hsize_t> dataset_shape(hid_t loc, const std::string& name, const std::string& where);

/// Read all of dataset `name` below `loc` into host memory `data` (room for every element)
/// converted to `mem_type`.
void read_raw(hid_t loc, const std::string& name, hid_t mem_type, void* data, const std::string& where);

/// Typed front end of read_raw: the dataset's elements in row-major order.
template <class T>
std::vector<T> read_array(hid_t loc, const std::string& name, const std::string& where) {
    hsize_t count = 1;
    for (hsize_t d : dataset_shape(loc, name, where)) count *= d;
    std::vector<T> values(static_cast<std::size_t>(count));
    if (!values.empty()) read_raw(loc, name, TypeOf<T>::mem(), values.data(), where);
    return values;
}

/// Write a 1-D dataset of variable-length UTF-8 strings.
void write_strings(hid_t loc, const std::string& name, const std::vector<std::string>& values,
                   const std::string& where);

/// Attach a scalar variable-length UTF-8 string attribute to object `obj`.
void write_string_attr(hid_t obj, const std::string& name, const std::string& value, const std::string& where);
/// Attach a 1-D variable-length UTF-8 string array attribute (what h5py writes for
/// `attrs[name] = [..]`) to object `obj`.
void write_string_array_attr(hid_t obj, const std::string& name, const std::vector<std::string>& values,
                             const std::string& where);
/// Attach a scalar numeric attribute.
void write_scalar_attr(hid_t obj, const std::string& name, hid_t mem_type, hid_t file_type, const void* value,
                       const std::string& where);

/// Whether object `obj` has an attribute `name`.
bool has_attr(hid_t obj, const std::string& name);

/// Read a string attribute (scalar or 1-D; fixed- or variable-length strings; ASCII or
/// UTF-8; trailing NULs and space padding removed). Throws InputError naming `where`
/// when the attribute is not of a string type.
std::vector<std::string> read_string_attr(hid_t obj, const std::string& name, const std::string& where);

/// Read a 1-D dataset of strings (fixed- or variable-length, ASCII or UTF-8; padding
/// removed as in read_string_attr), e.g. what write_strings wrote. Throws InputError naming
/// `where` when the dataset is missing or does not hold strings.
std::vector<std::string> read_strings(hid_t loc, const std::string& name, const std::string& where);

/// Full paths ("/a/b") of the datasets reachable from the root of `file` through hard
/// links, in HDF5's name order.
std::vector<std::string> list_datasets(hid_t file);

/// The attribute name write_config uses for a key: every character outside [A-Za-z0-9_]
/// becomes '_'; an empty key becomes "_".
std::string sanitize_attr_name(const std::string& key);

/// A result's /config group: one string attribute per (key, value), keys mapped by
/// sanitize_attr_name (a repeated key gets _2, _3, ...).
void write_config(hid_t root, const std::vector<std::pair<std::string, std::string>>& config, const std::string& where);

}  // namespace cudag::io::h5
