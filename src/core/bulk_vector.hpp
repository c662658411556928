// SPDX-License-Identifier: Apache-2.0
// BulkVector<T>: a std::vector whose resize() leaves new trivially constructible elements
// uninitialised. The level loop sizes arrays of tens of millions of entries and fills
// them at once on worker threads; value-initialising them first was a serial pass over
// fresh memory (the page faults included) on the critical path of every large level.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cudag {

template <class T>
struct NoInitAllocator : std::allocator<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = NoInitAllocator<U>;
    };
    NoInitAllocator() = default;
    template <class U>
    NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
    /// Default-initialise (no zeroing for trivial types) instead of value-initialise.
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <class U>
    bool operator==(const NoInitAllocator<U>&) const noexcept {
        return true;
    }
};

template <class T>
using BulkVector = std::vector<T, NoInitAllocator<T>>;

}  // namespace cudag
