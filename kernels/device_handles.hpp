// SPDX-License-Identifier: Apache-2.0
// RAII owners of CUDA streams and events, and scoped device switches. Host code only
// (g++-safe, no kernel syntax); src/ never includes it (STYLE 2).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda_check.hpp"

namespace cudag::cuda {

/// Whether `device`'s primary context exists in this process (true when the driver cannot
/// tell). Never throws.
bool primary_context_active(int device) noexcept;

/// Makes `previous` the calling thread's device again, unless it is already or its primary
/// context does not exist: since CUDA 12, cudaSetDevice creates the context, so restoring
/// a thread's default device 0 would put a context (time, and hundreds of MB) on GPU 0 from
/// every rank of a host. Never throws.
void set_device_back(int previous) noexcept;

/// Lets `kernel` take as much dynamic shared memory as the current device allows a block
/// (the opt-in limit less its static shared memory). Always the same value, so that host
/// threads launching it at once with different sizes cannot lower each other's limit
/// between the setting and the launch (as setting each launch's size would); the size a
/// launch asks for still decides its occupancy.
template <class Kernel>
void allow_dynamic_shared(Kernel* kernel) {
    int device = 0, optin = 0;
    CUDAG_CUDA_CHECK(cudaGetDevice(&device));
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes attr{};
    CUDAG_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
    CUDAG_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          optin - static_cast<int>(attr.sharedSizeBytes)));
}

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
        if (cudaGetDevice(&now) == cudaSuccess && now != previous_) set_device_back(previous_);
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
        if (switched_) set_device_back(previous_);
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
