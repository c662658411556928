// SPDX-License-Identifier: Apache-2.0
// RAII owners for device memory, streams and events, and a scoped
// device switch. The only file that calls cudaMalloc/cudaFree.
// Host code only (g++-safe, no kernel syntax), so that the CUDA engines and
// mpi/nccl_communicator.cpp share one implementation; it includes
// <cuda_runtime.h>, so src/ never includes it (STYLE 2).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>

#include "cuda_check.hpp"

namespace cudag::cuda {

/// "1.50 GiB" style size for messages.
inline std::string format_bytes(std::size_t bytes) {
    char buf[64];
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
    return buf;
}

/// Free and total memory of the current device.
inline std::pair<std::size_t, std::size_t> device_memory_info() {
    std::size_t free_b = 0, total_b = 0;
    CUDAG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    return {free_b, total_b};
}

/// Where an OwnedArray's memory lives: device memory of the current device.
struct DeviceMemory {
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        const cudaError_t e = cudaMalloc(&p, bytes);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            std::size_t free_b = 0, total_b = 0;
            cudaMemGetInfo(&free_b, &total_b);
            throw OutOfMemory("cuda: cannot allocate " + format_bytes(bytes) +
                              " of device memory (" + format_bytes(free_b) + " free of " +
                              format_bytes(total_b) + ")");
        }
        CUDAG_CUDA_CHECK(e);
        return p;
    }
    static void release(void* p) { CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p)); }
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
        : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)),
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
            CUDAG_CUDA_CHECK(cudaMemcpyAsync(this->ptr_ + offset, src, count * sizeof(T),
                                             cudaMemcpyHostToDevice, stream));
    }
    /// Copy elements [offset, offset + count) to host `dst`.
    void download(T* dst, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
        if (count)
            CUDAG_CUDA_CHECK(cudaMemcpyAsync(dst, this->ptr_ + offset, count * sizeof(T),
                                             cudaMemcpyDeviceToHost, stream));
    }

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};


/// Owned non-blocking stream (never the legacy default stream).
class Stream {
public:
    Stream() { CUDAG_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s_) CUDAG_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_));
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
    Stream& operator=(Stream&&) = delete;

    cudaStream_t get() const { return s_; }
    void synchronize() const { CUDAG_CUDA_CHECK(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_ = nullptr;
};

/// Owned event (timing enabled).
class Event {
public:
    Event() { CUDAG_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() {
        if (e_) CUDAG_CUDA_CHECK_NOTHROW(cudaEventDestroy(e_));
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) { CUDAG_CUDA_CHECK(cudaEventRecord(e_, s)); }
    void synchronize() const { CUDAG_CUDA_CHECK(cudaEventSynchronize(e_)); }
    /// Milliseconds from `start` to this event (both recorded and complete).
    float elapsed_ms_since(const Event& start) const {
        float ms = 0.f;
        CUDAG_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
        return ms;
    }

private:
    cudaEvent_t e_ = nullptr;
};

/// Makes `device` current for the scope and restores the previous device after.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        CUDAG_CUDA_CHECK(cudaGetDevice(&previous_));
        if (device != previous_) CUDAG_CUDA_CHECK(cudaSetDevice(device));
    }
    ~DeviceGuard() {
        int now = previous_;
        if (cudaGetDevice(&now) == cudaSuccess && now != previous_)
            CUDAG_CUDA_CHECK_NOTHROW(cudaSetDevice(previous_));
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = 0;
};

/// For a class whose members own memory, streams or events of one device: declared as
/// its first member, and bound by the class's destructor, it keeps that device current
/// while the other members are destroyed (after the destructor's body, in reverse order of
/// declaration) and restores the previous device after them. The members stay the owners:
/// no destructor lists the buffers it frees.
class DeviceBinding {
public:
    explicit DeviceBinding(int device) : device_(device) {}
    ~DeviceBinding() {
        if (switched_) CUDAG_CUDA_CHECK_NOTHROW(cudaSetDevice(previous_));
    }
    DeviceBinding(const DeviceBinding&) = delete;
    DeviceBinding& operator=(const DeviceBinding&) = delete;

    int device() const { return device_; }
    /// Make the device current until this object is destroyed. Never throws.
    void bind() noexcept {
        if (cudaGetDevice(&previous_) != cudaSuccess) {
            cudaGetLastError();
            return;
        }
        if (previous_ == device_) return;
        if (cudaSetDevice(device_) == cudaSuccess) switched_ = true;
        else cudaGetLastError();
    }

private:
    int device_;
    int previous_ = 0;
    bool switched_ = false;
};

}  // namespace cudag::cuda
