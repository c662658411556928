// SPDX-License-Identifier: Apache-2.0
// A repeated call's whole path (the module's other sources are built for size, -Os; this
// one for speed: python/CMakeLists.txt).
#include "cit_memo.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace cudag::python {

namespace nb = nanobind;

namespace {

/// compat.causallearn.CIT's base class: causal-learn's call cit(X, Y, condition_set)
/// answered from the p-values computed so far, keyed as causal-learn keys its pvalue_cache
/// (X and Y in increasing order, the set sorted without repeats), without a Python frame.
/// Any other call (a key not in the table; arguments the key does not cover: not integers,
/// more than kMax variables, X or Y in the set) goes to the subclass's
/// _compute(X, Y, condition_set), whose float result is remembered under the key. Calls
/// come by CPython's vectorcall (enable_vectorcall; no tuple of the arguments), else by
/// the type's tp_call.
///
/// The table (issue 57) is the keys and their p-values in the order remembered, behind an
/// open-addressing index (linear probing, a power of two of 8-byte slots, at most half
/// full, each slot 32 bits of the key's hash and the entry's number): a repeated call reads
/// its integers, hashes them, reads a slot of an index of 16 bytes a key and then, mostly,
/// the one entry it names, and returns a new float of the p-value's bits. (It was a
/// std::unordered_map holding the float objects: its walk of a bucket hashed each node
/// again, and the node, then the float, were two more places in memory a call.)
class CitMemo {
public:
    static constexpr int kMax = 10;  ///< X, Y and up to 8 conditioning variables
    /// Column indices: int32, as the tester takes them; the unused ones 0 (key_of clears
    /// them), so that two keys compare and hash as whole arrays.
    struct Key {
        std::array<std::int32_t, kMax> v;
        std::int32_t n;
        bool operator==(const Key& o) const noexcept {
            std::uint32_t diff = static_cast<std::uint32_t>(n ^ o.n);
            for (std::size_t i = 0; i < v.size(); ++i) diff |= static_cast<std::uint32_t>(v[i] ^ o.v[i]);
            return diff == 0;
        }
        std::uint64_t hash() const noexcept {
            std::uint64_t h = static_cast<std::uint64_t>(n) * 0x9e3779b97f4a7c15ULL;
            for (std::size_t i = 0; i < v.size(); i += 2) {
                const std::uint64_t w = static_cast<std::uint32_t>(v[i]) |
                                        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(v[i + 1])) << 32);
                h = (h ^ w) * 0xff51afd7ed558ccdULL;
                h ^= h >> 29;
            }
            return h ^ (h >> 32);
        }
    };

    /// The instance's vectorcall (CPython's call protocol without an argument tuple), read
    /// at the type's tp_vectorcall_offset once enable_vectorcall has set it.
    vectorcallfunc vectorcall = &CitMemo::vector_call;

    /// The type's tp_call (inherited by the Python subclass): the result for (X, Y,
    /// condition_set=None), remembered, else self._compute(X, Y, condition_set).
    static PyObject* call(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
        PyObject *x = nullptr, *y = nullptr, *s = Py_None;
        const Py_ssize_t n = PyTuple_GET_SIZE(args);
        if (!kwargs && (n == 2 || n == 3)) {
            x = PyTuple_GET_ITEM(args, 0);
            y = PyTuple_GET_ITEM(args, 1);
            if (n == 3) s = PyTuple_GET_ITEM(args, 2);
        } else {
            static const char* words[] = {"X", "Y", "condition_set", nullptr};
            if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:__call__", const_cast<char**>(words), &x, &y, &s))
                return nullptr;
        }
        return answer(self, x, y, s);
    }

    /// The same call made by CPython's vectorcall: (X, Y) or (X, Y, condition_set) by
    /// position straight from the caller's stack; keywords or another count go through
    /// call's parsing (its messages).
    static PyObject* vector_call(PyObject* self, PyObject* const* args, std::size_t nargsf,
                                 PyObject* kwnames) noexcept {
        const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
        if (!kwnames && (n == 2 || n == 3)) return answer(self, args[0], args[1], n == 3 ? args[2] : Py_None);
        PyObject* tuple = PyTuple_New(n);
        if (!tuple) return nullptr;
        for (Py_ssize_t i = 0; i < n; ++i) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(tuple, i, args[i]);
        }
        PyObject* kwargs = nullptr;
        const Py_ssize_t words = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        if (words > 0) {
            kwargs = PyDict_New();
            for (Py_ssize_t i = 0; kwargs && i < words; ++i) {
                if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0) Py_CLEAR(kwargs);
            }
            if (!kwargs) {
                Py_DECREF(tuple);
                return nullptr;
            }
        }
        PyObject* result = call(self, tuple, kwargs);
        Py_DECREF(tuple);
        Py_XDECREF(kwargs);
        return result;
    }

    /// Has the instance's type (a Python subclass, which CPython before 3.12 does not let
    /// inherit a vectorcall) call instances by `vectorcall`: when the type's call is still
    /// CitMemo's and the member lies inside the instance, at the same place in each instance
    /// of the type. True when the type calls by vectorcall.
    static bool enable_vectorcall(nb::handle self) {
        PyTypeObject* type = Py_TYPE(self.ptr());
        const CitMemo* m = nb::inst_ptr<CitMemo>(self);
        const char* base = reinterpret_cast<const char*>(self.ptr());
        const Py_ssize_t offset = reinterpret_cast<const char*>(&m->vectorcall) - base;
        if (type->tp_call != &CitMemo::call || offset <= 0 ||
            offset + static_cast<Py_ssize_t>(sizeof(vectorcallfunc)) > type->tp_basicsize)
            return false;
        if (PyType_HasFeature(type, Py_TPFLAGS_HAVE_VECTORCALL)) return type->tp_vectorcall_offset == offset;
        type->tp_vectorcall_offset = offset;
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
        PyType_Modified(type);
        return true;
    }

    std::size_t size() const noexcept { return entries_.size(); }
    void clear() noexcept {
        entries_.clear();
        std::fill(index_.begin(), index_.end(), 0);
    }

    bool enabled = true;

private:
    struct Entry {
        Key key;
        double p;
    };

    /// A slot of the index: 0 empty, else the hash's high 32 bits and the entry's number + 1.
    static std::uint64_t slot(std::uint64_t h, std::size_t entry) noexcept {
        return (h & 0xffffffff00000000ULL) | static_cast<std::uint64_t>(entry + 1);
    }

    const Entry* find(const Key& k, std::uint64_t h) const noexcept {
        if (index_.empty()) return nullptr;
        const std::size_t mask = index_.size() - 1;
        const std::uint64_t tag = h & 0xffffffff00000000ULL;
        for (std::size_t i = static_cast<std::size_t>(h) & mask;; i = (i + 1) & mask) {
            const std::uint64_t s = index_[i];
            if (s == 0) return nullptr;
            if ((s & 0xffffffff00000000ULL) == tag) {
                const Entry& e = entries_[static_cast<std::size_t>(s & 0xffffffffULL) - 1];
                if (e.key == k) return &e;
            }
        }
    }
    /// Remembers p under a key not in the table.
    void insert(const Key& k, std::uint64_t h, double p) {
        if (entries_.size() >= 0xfffffffeULL) return;  // an entry's number is 32 bits
        if (2 * (entries_.size() + 1) > index_.size()) grow();
        entries_.push_back({k, p});
        place(index_, slot(h, entries_.size() - 1), h);
    }
    static void place(std::vector<std::uint64_t>& index, std::uint64_t s, std::uint64_t h) noexcept {
        const std::size_t mask = index.size() - 1;
        std::size_t i = static_cast<std::size_t>(h) & mask;
        while (index[i]) i = (i + 1) & mask;
        index[i] = s;
    }
    void grow() {
        std::vector<std::uint64_t> bigger(index_.empty() ? 64 : 2 * index_.size(), 0);
        for (std::size_t e = 0; e < entries_.size(); ++e) {
            const std::uint64_t h = entries_[e].key.hash();
            place(bigger, slot(h, e), h);
        }
        index_.swap(bigger);
    }

    /// The result for (x, y, s): the table's, else self._compute(x, y, s) (remembered when
    /// a float and the arguments make a key).
    static PyObject* answer(PyObject* self, PyObject* x, PyObject* y, PyObject* s) noexcept {
        try {
            CitMemo& m = *nb::inst_ptr<CitMemo>(self);
            Key k;
            k.n = 0;
            const bool keyed = m.enabled && key_of(x, y, s, k);
            const std::uint64_t h = keyed ? k.hash() : 0;
            if (keyed)
                if (const Entry* hit = m.find(k, h)) return PyFloat_FromDouble(hit->p);
            static PyObject* const compute = PyUnicode_InternFromString("_compute");
            PyObject* p = PyObject_CallMethodObjArgs(self, compute, x, y, s, nullptr);
            // (looked up again: _compute may have called self with the same key)
            if (p && keyed && PyFloat_CheckExact(p) && !m.find(k, h)) m.insert(k, h, PyFloat_AS_DOUBLE(p));
            return p;
        } catch (const std::bad_alloc&) {
            return PyErr_NoMemory();
        }
    }

    /// An integer as causal-learn's int(X) takes it (Python or numpy integers), or false.
    static bool as_index(PyObject* o, std::int32_t& out) {
        if (PyLong_CheckExact(o)) {  // the common case: no new reference
            int overflow = 0;
            const long v = PyLong_AsLongAndOverflow(o, &overflow);
            out = static_cast<std::int32_t>(v);
            return overflow == 0 && v == out;  // an exact int cannot fail otherwise
        }
        PyObject* i = PyNumber_Index(o);
        if (!i) {
            PyErr_Clear();
            return false;
        }
        int overflow = 0;
        const long v = PyLong_AsLongAndOverflow(i, &overflow);
        Py_DECREF(i);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return false;
        }
        out = static_cast<std::int32_t>(v);
        return v == out;
    }
    /// The key of (x, y, s) in `k`: X < Y, then the set in increasing order without repeats
    /// (an insertion sort: a set of a few), the rest 0; or false.
    static bool key_of(PyObject* x, PyObject* y, PyObject* s, Key& k) {
        k.v.fill(0);
        std::int32_t a = 0, b = 0;
        if (!as_index(x, a) || !as_index(y, b) || a == b) return false;
        k.v[0] = std::min(a, b);
        k.v[1] = std::max(a, b);
        k.n = 2;
        if (s == Py_None) return true;
        PyObject* seq = PySequence_Fast(s, "");
        if (!seq) {
            PyErr_Clear();
            return false;
        }
        const Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
        PyObject** items = PySequence_Fast_ITEMS(seq);
        bool ok = len <= kMax - 2;
        for (Py_ssize_t i = 0; ok && i < len; ++i) {
            std::int32_t v = 0;
            ok = as_index(items[i], v) && v != a && v != b;
            if (!ok) break;
            auto j = static_cast<std::size_t>(k.n);
            while (j > 2 && k.v[j - 1] > v) --j;
            if (j > 2 && k.v[j - 1] == v) continue;  // a repeat
            for (auto t = static_cast<std::size_t>(k.n); t > j; --t) k.v[t] = k.v[t - 1];
            k.v[j] = v;
            ++k.n;
        }
        Py_DECREF(seq);
        return ok;
    }

    std::vector<std::uint64_t> index_;  ///< a power of two of slots, or none
    std::vector<Entry> entries_;        ///< in the order remembered
};

}  // namespace

void bind_cit_memo(nb::module_& m) {
    static PyType_Slot cit_memo_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&CitMemo::call)}, {0, nullptr}};
    nb::class_<CitMemo>(m, "CitMemo", nb::type_slots(cit_memo_slots))
        .def(nb::init<>())
        .def_rw("_memo_enabled", &CitMemo::enabled)
        .def("_memo_size", &CitMemo::size)
        .def("_memo_clear", &CitMemo::clear)
        .def("_enable_vectorcall", &CitMemo::enable_vectorcall);
}

}  // namespace cudag::python
