// SPDX-License-Identifier: Apache-2.0
// RAII owners for device memory (DeviceBuffer), allocating through the current device's
// block cache (device_context.hpp), and for pinned host memory (PinnedBuffer). The only file
// that calls cudaMalloc/cudaFree (and cudaMallocHost/cudaFreeHost) besides the block cache's
// release. Host code only (g++-safe, no kernel syntax), so that the CUDA
// engines and kernels/nccl_communicator.cpp share one implementation; it includes
// <cuda_runtime.h>, so src/ never includes it (STYLE 2). Streams, events and device
// switches: device_handles.hpp (included).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_handles.hpp"

namespace cudag::cuda {

/// Free and total memory of the current device; memory the block cache keeps counts as free.
inline std::pair<std::size_t, std::size_t> device_memory_info() {
    std::size_t free_b = 0, total_b = 0;
    CUDAG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    int device = 0;
    CUDAG_CUDA_CHECK(cudaGetDevice(&device));
    return {free_b + DeviceContext::for_device(device).blocks().kept_bytes(), total_b};
}

/// Where an OwnedArray's memory lives: device memory of the current device.
struct DeviceMemory {
    static void* allocate(std::size_t bytes) {
        int device = 0;
        CUDAG_CUDA_CHECK(cudaGetDevice(&device));
        DeviceBlockCache& cache = DeviceContext::for_device(device).blocks();
        if (void* p = cache.take(bytes)) return p;
        void* p = nullptr;
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e == cudaErrorMemoryAllocation && cache.kept_bytes() > 0) {
            cudaGetLastError();
            cache.release();
            e = cudaMalloc(&p, bytes);
        }
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            std::size_t free_b = 0, total_b = 0;
            cudaMemGetInfo(&free_b, &total_b);
            throw OutOfMemory("cuda: cannot allocate " + format_bytes(bytes) + " of device memory (" +
                              format_bytes(free_b) + " free of " + format_bytes(total_b) + ")");
        }
        CUDAG_CUDA_CHECK(e);
        cache.track(p, bytes);
        return p;
    }
    static void release(void* p) {
        DeviceContext* owner = DeviceContext::owner_of(p);
        int current = 0;
        if (owner == nullptr || cudaGetDevice(&current) != cudaSuccess) {
            cudaGetLastError();
            if (owner) owner->blocks().forget(p);
            CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p));
            return;
        }
        const int device = owner->device();
        DeviceBlockCache& cache = owner->blocks();
        // As cudaFree: nothing still running may use the block when it is handed on (only
        // the work of the thread's named stream can, where it names one: ReleaseStream).
        if (current != device && cudaSetDevice(device) != cudaSuccess) cudaGetLastError();
        const cudaStream_t named = ReleaseStream::current();
        const bool synced = (named != nullptr ? cudaStreamSynchronize(named) : cudaDeviceSynchronize()) == cudaSuccess;
        if (!synced) cudaGetLastError();
        if (!synced || !cache.keep(p)) {
            cache.forget(p);
            CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p));
        }
        if (current != device) set_device_back(current);
    }
};

/// Where an OwnedArray's memory lives: page-locked host memory, which device copies reach
/// asynchronously and at the link's full speed (a pageable copy is staged by the driver and
/// blocks the host).
struct PinnedMemory {
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        const cudaError_t e = cudaMallocHost(&p, bytes);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            throw OutOfMemory("cuda: cannot allocate " + format_bytes(bytes) + " of pinned host memory");
        }
        CUDAG_CUDA_CHECK(e);
        return p;
    }
    static void release(void* p) { CUDAG_CUDA_CHECK_NOTHROW(cudaFreeHost(p)); }
};

/// Move-only array of `size()` elements of T in memory of kind `Memory`. Sizes are
/// std::size_t elements. Contents are uninitialised.
template <typename T, typename Memory>
class OwnedArray {
public:
    OwnedArray() = default;
    explicit OwnedArray(std::size_t count) { resize_discard(count); }
    ~OwnedArray() { release(); }
    OwnedArray(const OwnedArray&) = delete;
    OwnedArray& operator=(const OwnedArray&) = delete;
    OwnedArray(OwnedArray&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)),
          size_(std::exchange(o.size_, 0)),
          capacity_(std::exchange(o.capacity_, 0)) {}
    OwnedArray& operator=(OwnedArray&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            size_ = std::exchange(o.size_, 0);
            capacity_ = std::exchange(o.capacity_, 0);
        }
        return *this;
    }

    /// Make room for `count` elements, discarding the contents; grows only.
    void resize_discard(std::size_t count) {
        if (count <= capacity_) {
            size_ = count;
            return;
        }
        release();
        if (count == 0) return;
        ptr_ = static_cast<T*>(Memory::allocate(count * sizeof(T)));
        size_ = capacity_ = count;
    }
    void release() {
        if (ptr_) Memory::release(ptr_);
        ptr_ = nullptr;
        size_ = capacity_ = 0;
    }

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return size_ * sizeof(T); }

protected:
    T* ptr_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// Device array with stream-ordered fill and copies.
template <typename T>
class DeviceBuffer : public OwnedArray<T, DeviceMemory> {
    using Base = OwnedArray<T, DeviceMemory>;

public:
    using Base::Base;

    /// Set every byte of the first `count` elements to `byte` (all elements by default).
    void fill_bytes(int byte, cudaStream_t stream, std::size_t count = npos) {
        const std::size_t c = count == npos ? this->size_ : count;
        if (c) CUDAG_CUDA_CHECK(cudaMemsetAsync(this->ptr_, byte, c * sizeof(T), stream));
    }
    /// Copy `count` elements from host `src` to elements [offset, offset + count).
    void upload(const T* src, std::size_t count, cudaStream_t stream, std::size_t offset = 0) {
        if (count)
            CUDAG_CUDA_CHECK(
                cudaMemcpyAsync(this->ptr_ + offset, src, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
    /// Copy elements [offset, offset + count) to host `dst`.
    void download(T* dst, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
        if (count)
            CUDAG_CUDA_CHECK(
                cudaMemcpyAsync(dst, this->ptr_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

/// Page-locked host array (PinnedMemory): the staging buffers of asynchronous copies.
template <typename T>
using PinnedBuffer = OwnedArray<T, PinnedMemory>;

}  // namespace cudag::cuda
