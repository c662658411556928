// SPDX-License-Identifier: Apache-2.0
// RAII owners for device memory, streams and events, and a scoped
// device switch. The only file that calls cudaMalloc/cudaFree.
// Host code only (g++-safe, no kernel syntax), so that the CUDA engines and
// kernels/nccl_communicator.cpp share one implementation; it includes
// <cuda_runtime.h>, so src/ never includes it (STYLE 2).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
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

/// Device memory that OwnedArray releases is kept for the next allocation of about its
/// size on its device instead of being handed back to the driver, so that a process that
/// runs one search after another (the Python module) or level after level does not pay
/// cudaMalloc and cudaFree each time. A release synchronises the device first, as cudaFree
/// would; an allocation that finds no room hands the kept blocks back and tries again; and
/// the memory kept counts as free (device_memory_info), so plans do not shrink. At most a
/// quarter of the device is kept; what is kept at exit goes with the context.
class BlockCache {
public:
    static BlockCache& instance() {
        static BlockCache* cache = new BlockCache();  // never destroyed: outlives every owner
        return *cache;
    }

    /// A kept block of at least `bytes` (and at most twice that) on `device`, or null.
    void* take(int device, std::size_t bytes) {
        const std::lock_guard<std::mutex> lock(m_);
        auto& kept = kept_[device];
        const auto it = kept.lower_bound(bytes);
        if (it == kept.end() || it->first > 2 * bytes + (std::size_t(1) << 20)) return nullptr;
        void* p = it->second;
        kept_bytes_[device] -= it->first;
        kept.erase(it);
        return p;
    }
    /// Record a block fresh from cudaMalloc.
    void track(void* p, int device, std::size_t bytes) {
        const std::lock_guard<std::mutex> lock(m_);
        live_[p] = {device, bytes};
    }
    /// Keep `p` (the caller has synchronised its device) unless that would exceed the cap;
    /// false: the caller frees it.
    bool keep(void* p, int& device) {
        const std::lock_guard<std::mutex> lock(m_);
        const auto it = live_.find(p);
        if (it == live_.end()) return false;
        device = it->second.device;
        const std::size_t bytes = it->second.bytes;
        if (kept_bytes_[device] + bytes > cap(device)) {
            live_.erase(it);
            return false;
        }
        kept_[device].emplace(bytes, p);
        kept_bytes_[device] += bytes;
        return true;
    }
    /// Where a block is not kept: forget it.
    void forget(void* p) {
        const std::lock_guard<std::mutex> lock(m_);
        live_.erase(p);
    }
    /// The device `p` was allocated on (-1: unknown).
    int device_of(void* p) {
        const std::lock_guard<std::mutex> lock(m_);
        const auto it = live_.find(p);
        return it == live_.end() ? -1 : it->second.device;
    }
    /// Hand every kept block of `device` back to the driver (the current device).
    void release(int device) {
        std::multimap<std::size_t, void*> kept;
        {
            const std::lock_guard<std::mutex> lock(m_);
            kept.swap(kept_[device]);
            kept_bytes_[device] = 0;
            for (const auto& [bytes, p] : kept) live_.erase(p);
        }
        for (const auto& [bytes, p] : kept) CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p));
    }
    std::size_t kept_bytes(int device) {
        const std::lock_guard<std::mutex> lock(m_);
        return kept_bytes_[device];
    }

private:
    struct Block {
        int device;
        std::size_t bytes;
    };
    std::size_t cap(int device) {
        auto& c = cap_[device];
        if (c == 0) {
            std::size_t free_b = 0, total_b = 0;
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
            c = total_b / 4 + 1;
        }
        return c;
    }
    std::mutex m_;
    std::unordered_map<void*, Block> live_;
    std::unordered_map<int, std::multimap<std::size_t, void*>> kept_;
    std::unordered_map<int, std::size_t> kept_bytes_;
    std::unordered_map<int, std::size_t> cap_;
};

/// Free and total memory of the current device; memory the block cache keeps counts as free.
inline std::pair<std::size_t, std::size_t> device_memory_info() {
    std::size_t free_b = 0, total_b = 0;
    CUDAG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    int device = 0;
    CUDAG_CUDA_CHECK(cudaGetDevice(&device));
    return {free_b + BlockCache::instance().kept_bytes(device), total_b};
}

/// Where an OwnedArray's memory lives: device memory of the current device.
struct DeviceMemory {
    static void* allocate(std::size_t bytes) {
        int device = 0;
        CUDAG_CUDA_CHECK(cudaGetDevice(&device));
        BlockCache& cache = BlockCache::instance();
        if (void* p = cache.take(device, bytes)) return p;
        void* p = nullptr;
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e == cudaErrorMemoryAllocation && cache.kept_bytes(device) > 0) {
            cudaGetLastError();
            cache.release(device);
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
        cache.track(p, device, bytes);
        return p;
    }
    static void release(void* p) {
        BlockCache& cache = BlockCache::instance();
        const int device = cache.device_of(p);
        int current = 0;
        if (device < 0 || cudaGetDevice(&current) != cudaSuccess) {
            cudaGetLastError();
            cache.forget(p);
            CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p));
            return;
        }
        // As cudaFree: nothing still running may use the block when it is handed on.
        if (current != device && cudaSetDevice(device) != cudaSuccess) cudaGetLastError();
        const bool synced = cudaDeviceSynchronize() == cudaSuccess;
        if (!synced) cudaGetLastError();
        int kept_on = device;
        if (!synced || !cache.keep(p, kept_on)) {
            cache.forget(p);
            CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p));
        }
        if (current != device && cudaSetDevice(current) != cudaSuccess) cudaGetLastError();
    }
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
        if (cudaGetDevice(&now) == cudaSuccess && now != previous_) CUDAG_CUDA_CHECK_NOTHROW(cudaSetDevice(previous_));
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
        if (cudaSetDevice(device_) == cudaSuccess)
            switched_ = true;
        else
            cudaGetLastError();
    }

private:
    int device_;
    int previous_ = 0;
    bool switched_ = false;
};

}  // namespace cudag::cuda
