// SPDX-License-Identifier: Apache-2.0
// The per-device context of the CUDA engines: for each device the process uses, one
// DeviceContext holds the device id, the one stream that every engine's work on that device
// goes on, and the device's block cache (the allocator behind DeviceBuffer, which keeps the
// memory an owner releases for the next allocation of about its size: scratch buffers are
// reused across levels, engines and searches through it). Contexts are looked up by device
// id (DeviceContext::for_device), not by thread, and live for the rest of the process: a
// rank driving one GPU has one context, shared by the Fisher-z, discrete, CMIknn and
// order-MCMC engines.
//
// Header-only host code (g++-safe, no kernel syntax): kernels/nccl_communicator.cpp, which
// is part of cudag_mpi (below cudag_cuda), allocates through it too.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "device_handles.hpp"

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

/// One device's block cache. Device memory that OwnedArray releases is kept for the next
/// allocation of about its size on its device instead of being handed back to the driver,
/// so that a process that runs one search after another (the Python module) or level after
/// level does not pay cudaMalloc and cudaFree each time. A release synchronises the device
/// first, as cudaFree would; an allocation that finds no room hands the kept blocks back and
/// tries again; and the memory kept counts as free (device_memory_info), so plans do not
/// shrink. At most a quarter of the device is kept; what is kept at exit goes with the
/// CUDA context. Thread-safe.
class DeviceBlockCache {
public:
    explicit DeviceBlockCache(int device) : device_(device) {}
    DeviceBlockCache(const DeviceBlockCache&) = delete;
    DeviceBlockCache& operator=(const DeviceBlockCache&) = delete;

    int device() const { return device_; }

    /// A kept block of at least `bytes` (and at most twice that), or null.
    void* take(std::size_t bytes) {
        const std::lock_guard<std::mutex> lock(m_);
        const auto it = kept_.lower_bound(bytes);
        if (it == kept_.end() || it->first > 2 * bytes + (std::size_t(1) << 20)) return nullptr;
        void* p = it->second;
        kept_bytes_ -= it->first;
        kept_.erase(it);
        return p;
    }
    /// Record a block fresh from cudaMalloc.
    void track(void* p, std::size_t bytes) {
        const std::lock_guard<std::mutex> lock(m_);
        live_[p] = bytes;
    }
    /// Whether `p` came from this cache's device (and is not kept).
    bool tracks(void* p) {
        const std::lock_guard<std::mutex> lock(m_);
        return live_.count(p) != 0;
    }
    /// Keep `p` (the caller has synchronised the device; the device is current) unless that
    /// would exceed the cap; false: the caller frees it.
    bool keep(void* p) {
        const std::lock_guard<std::mutex> lock(m_);
        const auto it = live_.find(p);
        if (it == live_.end()) return false;
        const std::size_t bytes = it->second;
        if (kept_bytes_ + bytes > cap()) {
            live_.erase(it);
            return false;
        }
        kept_.emplace(bytes, p);
        kept_bytes_ += bytes;
        return true;
    }
    /// Where a block is not kept: forget it.
    void forget(void* p) {
        const std::lock_guard<std::mutex> lock(m_);
        live_.erase(p);
    }
    /// Hand every kept block back to the driver (the device must be current).
    void release() {
        std::multimap<std::size_t, void*> kept;
        {
            const std::lock_guard<std::mutex> lock(m_);
            kept.swap(kept_);
            kept_bytes_ = 0;
            for (const auto& [bytes, p] : kept) live_.erase(p);
        }
        for (const auto& [bytes, p] : kept) CUDAG_CUDA_CHECK_NOTHROW(cudaFree(p));
    }
    std::size_t kept_bytes() {
        const std::lock_guard<std::mutex> lock(m_);
        return kept_bytes_;
    }

private:
    /// A quarter of the device's memory (the current device: keep() is called on it).
    std::size_t cap() {
        if (cap_ == 0) {
            std::size_t free_b = 0, total_b = 0;
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
            cap_ = total_b / 4 + 1;
        }
        return cap_;
    }

    const int device_;
    std::mutex m_;
    std::unordered_map<void*, std::size_t> live_;  ///< blocks handed out: their sizes
    std::multimap<std::size_t, void*> kept_;       ///< blocks kept, by size
    std::size_t kept_bytes_ = 0;
    std::size_t cap_ = 0;
};

class StreamLease;

/// What the CUDA engines on one device share: the device id, one stream (non-blocking,
/// created at its first use), a pool of streams lent to engines that run at once
/// (lend_stream) and the device's block cache. Obtained by device id; never
/// destroyed (it outlives every engine and buffer, and its stream is not destroyed after
/// the driver at exit). The engines put all their work on stream() and synchronise it
/// at their named points; since they share the stream, one engine's synchronisation also
/// waits for work another engine queued on the device.
class DeviceContext {
public:
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

    /// The context of `device` (made at the first call for it). Thread-safe.
    static DeviceContext& for_device(int device) {
        Registry& r = registry();
        const std::lock_guard<std::mutex> lock(r.m);
        std::unique_ptr<DeviceContext>& c = r.contexts[device];
        if (!c) c.reset(new DeviceContext(device));
        return *c;
    }
    /// The context of the current device.
    static DeviceContext& current() {
        int device = 0;
        CUDAG_CUDA_CHECK(cudaGetDevice(&device));
        return for_device(device);
    }
    /// Every context made so far, by device id.
    static std::vector<DeviceContext*> all() {
        Registry& r = registry();
        const std::lock_guard<std::mutex> lock(r.m);
        std::vector<DeviceContext*> out;
        for (const auto& [device, c] : r.contexts) out.push_back(c.get());
        return out;
    }
    /// The context whose block cache handed out `p`; null when none did.
    static DeviceContext* owner_of(void* p) {
        for (DeviceContext* c : all())
            if (c->blocks_.tracks(p)) return c;
        return nullptr;
    }

    int device() const { return device_; }
    /// The device's stream; the first call creates it (on the device, restoring the current
    /// device after).
    cudaStream_t stream() {
        std::call_once(stream_once_, [this] {
            DeviceGuard guard(device_);
            stream_ = std::make_unique<Stream>();
        });
        return stream_->get();
    }
    /// Wait for the work queued on stream().
    void synchronize() { CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream())); }
    /// A second stream of the device, for copies that overlap the work on stream() (the
    /// order-MCMC table's copies to the host, issue 37); its users order it against
    /// stream() with events and synchronise it themselves. Created at the first call.
    cudaStream_t copy_stream() {
        std::call_once(copy_stream_once_, [this] {
            DeviceGuard guard(device_);
            copy_stream_ = std::make_unique<Stream>();
        });
        return copy_stream_->get();
    }
    /// A stream of the device's pool for one engine's own use, returned to the pool when the
    /// lease ends (BackendContext::own_stream: engines driven at once from several host
    /// threads, a bootstrap's replicates, each on its own stream so that their work overlaps
    /// on the device). A stream is made when none is free; streams are never destroyed (as
    /// stream()). Thread-safe.
    StreamLease lend_stream();
    /// The device's multiprocessors (read once).
    int multiprocessors() {
        int sms = sms_.load(std::memory_order_relaxed);
        if (sms == 0) {
            CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
            sms_.store(sms, std::memory_order_relaxed);
        }
        return sms;
    }
    /// The device's block cache (DeviceBuffer allocates through it).
    DeviceBlockCache& blocks() { return blocks_; }

private:
    explicit DeviceContext(int device) : device_(device), blocks_(device) {}

    struct Registry {
        std::mutex m;
        std::map<int, std::unique_ptr<DeviceContext>> contexts;
    };
    static Registry& registry() {
        static Registry* r = new Registry();  // never destroyed: outlives every owner
        return *r;
    }

    const int device_;
    DeviceBlockCache blocks_;
    std::once_flag stream_once_;
    std::unique_ptr<Stream> stream_;
    std::once_flag copy_stream_once_;
    std::unique_ptr<Stream> copy_stream_;
    std::atomic<int> sms_{0};
    friend class StreamLease;
    void take_back(cudaStream_t s) {
        const std::lock_guard<std::mutex> lock(pool_m_);
        pool_free_.push_back(s);
    }
    std::mutex pool_m_;
    std::vector<std::unique_ptr<Stream>> pool_;  ///< every stream lent so far
    std::vector<cudaStream_t> pool_free_;        ///< those not lent now
};

/// A stream lent by DeviceContext::lend_stream: work queued on it before the lease ended
/// still runs; the next borrower's work queues after it.
class StreamLease {
public:
    StreamLease() = default;
    StreamLease(DeviceContext& ctx, cudaStream_t s) : ctx_(&ctx), s_(s) {}
    StreamLease(StreamLease&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)), s_(std::exchange(o.s_, nullptr)) {}
    StreamLease& operator=(StreamLease&& o) noexcept {
        if (this != &o) {
            if (ctx_) ctx_->take_back(s_);
            ctx_ = std::exchange(o.ctx_, nullptr);
            s_ = std::exchange(o.s_, nullptr);
        }
        return *this;
    }
    StreamLease(const StreamLease&) = delete;
    StreamLease& operator=(const StreamLease&) = delete;
    ~StreamLease() {
        if (ctx_) ctx_->take_back(s_);
    }
    cudaStream_t get() const { return s_; }
    explicit operator bool() const { return s_ != nullptr; }

private:
    DeviceContext* ctx_ = nullptr;
    cudaStream_t s_ = nullptr;
};

inline StreamLease DeviceContext::lend_stream() {
    const std::lock_guard<std::mutex> lock(pool_m_);
    if (pool_free_.empty()) {
        DeviceGuard guard(device_);
        pool_.push_back(std::make_unique<Stream>());
        pool_free_.push_back(pool_.back()->get());
    }
    const cudaStream_t s = pool_free_.back();
    pool_free_.pop_back();
    return StreamLease(*this, s);
}

/// For its scope, the one stream whose work may still use the device memory the calling
/// thread releases: an engine on a stream of its own (engines driven at once from several
/// host threads, StreamLease) names it, so that a release (DeviceMemory::release) waits for
/// that stream's work only, not for every engine's on the device, as a device-wide
/// synchronisation would. Where none is named, a release waits for the whole device.
class ReleaseStream {
public:
    explicit ReleaseStream(cudaStream_t s) : thread_(std::this_thread::get_id()), previous_(std::exchange(slot(), s)) {}
    ~ReleaseStream() {
        if (std::this_thread::get_id() == thread_) slot() = previous_;
    }
    ReleaseStream(const ReleaseStream&) = delete;
    ReleaseStream& operator=(const ReleaseStream&) = delete;
    /// The calling thread's named stream (null: none).
    static cudaStream_t current() { return slot(); }

private:
    static cudaStream_t& slot() {
        thread_local cudaStream_t s = nullptr;
        return s;
    }
    std::thread::id thread_;
    cudaStream_t previous_;
};

/// The block caches of all devices as one, by device id (DeviceContext::for_device(d).blocks()).
class BlockCache {
public:
    static BlockCache& instance() {
        static BlockCache cache;
        return cache;
    }
    std::size_t kept_bytes(int device) { return DeviceContext::for_device(device).blocks().kept_bytes(); }
    /// Hand device's kept blocks back to the driver (the device must be current).
    void release(int device) { DeviceContext::for_device(device).blocks().release(); }
};

}  // namespace cudag::cuda
