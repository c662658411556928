// SPDX-License-Identifier: Apache-2.0
// Linked into the wheel's module and executable only (python/bundle_libs.cmake): the two
// glibc functions newer than 2.34 that the statically linked GCC 12 runtime calls, defined
// here (hidden) from older ones, so that the wheel's manylinux tag follows from what cudag
// itself and its bundled libraries need (glibc 2.34) and not from the build machine's glibc.
//  * arc4random (GLIBC_2.36), std::random_device's: from getrandom (GLIBC_2.25);
//  * _dl_find_object (GLIBC_2.35), the unwinder's lookup of an address's .eh_frame_hdr
//    (libgcc, unwind-dw2-fde-dispatch.c): from dl_iterate_phdr (GLIBC_2.2.5), as glibc
//    does it, less the link map (left null; libgcc's unwinder does not read it).
#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace {

struct Lookup {
    std::uintptr_t pc;
    dl_find_object* out;
    bool found;
};

int find_object(dl_phdr_info* info, std::size_t, void* data) {
    auto* q = static_cast<Lookup*>(data);
    std::uintptr_t lo = UINTPTR_MAX, hi = 0;
    bool inside = false;
    const ElfW(Phdr)* eh = nullptr;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD) {
            const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
            const std::uintptr_t end = start + ph.p_memsz;
            lo = start < lo ? start : lo;
            hi = end > hi ? end : hi;
            inside = inside || (q->pc >= start && q->pc < end);
        } else if (ph.p_type == PT_GNU_EH_FRAME) {
            eh = &ph;
        }
    }
    if (!inside) {
        return 0;
    }
    q->out->dlfo_flags = 0;
    q->out->dlfo_map_start = reinterpret_cast<void*>(lo);
    q->out->dlfo_map_end = reinterpret_cast<void*>(hi);
    q->out->dlfo_link_map = nullptr;
    q->out->dlfo_eh_frame = eh ? reinterpret_cast<void*>(info->dlpi_addr + eh->p_vaddr) : nullptr;
    q->found = true;
    return 1;
}

}  // namespace

extern "C" {

__attribute__((visibility("hidden"))) int _dl_find_object(void* address, dl_find_object* result) noexcept {
    Lookup q{reinterpret_cast<std::uintptr_t>(address), result, false};
    dl_iterate_phdr(find_object, &q);
    return q.found ? 0 : -1;
}

__attribute__((visibility("hidden"))) std::uint32_t arc4random() noexcept {
    std::uint32_t v = 0;
    for (;;) {
        const ssize_t n = getrandom(&v, sizeof v, 0);
        if (n == static_cast<ssize_t>(sizeof v)) {
            return v;
        }
        if (n < 0 && errno != EINTR) {
            std::abort();  // no kernel randomness (Linux < 3.17): glibc's arc4random aborts too
        }
    }
}

}  // extern "C"
