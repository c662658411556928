// SPDX-License-Identifier: Apache-2.0
#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <hdf5.h>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <new>
#include <string>
#include <system_error>

#include "cli/info.hpp"
#include "cli/option_table.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "core/trace.hpp"
#include "cudag/config.hpp"
#include "io/output_set.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "pcmci/checkpoint.hpp"
#include "run/context.hpp"
#include "skeleton/skeleton.hpp"

namespace cudag::cli {
namespace {

std::string join_args(int argc, char** argv) {
    std::string s;
    for (int k = 0; k < argc; ++k) {
        if (k) s += ' ';
        s += argv[k];
    }
    return s;
}

/// The one line an error gets on stderr: "cudag: error: [rank r (host): ]message".
void print_error(const std::string& what, int rank, int size) {
    std::string msg = io::with_final_names(what);
    for (char& ch : msg)
        if (ch == '\n') ch = ' ';
    msg = printable(msg);  // raw bytes of a bad file (a binary BIF, a Latin-1 name) as \xNN
    const std::string who = size > 1 ? "rank " + std::to_string(rank) + " (" + mpi::host_name() + "): " : "";
    std::fprintf(stderr, "cudag: error: %s%s\n", who.c_str(), msg.c_str());
    std::fflush(stderr);
}

}  // namespace

int run(int argc, char** argv, const CommunicatorDecorator& decorate) {
    // Before any thread starts (MPI, CUDA, workers): they inherit the blocked signals.
    try {
        interrupt::install();
    } catch (const std::system_error& e) {
        // Not even one thread: an address-space or thread limit far too low to run at all.
        print_error(std::string("cannot start a thread (") + e.what() +
                        "): the address-space or thread limit (ulimit -v, ulimit -u) leaves cudag no room; raise it",
                    0, 1);
        return 1;
    }
    // A file-size limit (ulimit -f) would kill the process with SIGXFSZ, silently and with
    // its temporaries left; ignored, the write fails with EFBIG and is reported and cleaned
    // up as a full disk is (Python ignores it too).
    std::signal(SIGXFSZ, SIG_IGN);
    // HDF5's own exit handler closes what is still open; after a failed write (a full
    // disk) it crashes in H5D_close on the half-closed dataset. cudag closes every handle
    // itself (RAII), so the handler has nothing to do: do not register it.
    H5dont_atexit();
    trace_moment("process start");
    // Registered before CUDA's runtime registers its handlers, so it runs after them; the
    // context itself is torn down later, in the libraries' destructors (measured on one
    // H200: 42-47 ms after this stamp), so it marks the exit handlers, not the context's end.
    if (trace_enabled()) std::atexit([] { trace_moment("exit handlers done"); });
    // The rank's CUDA context made while MPI starts (a launcher's rank of `cudag pc`/`mcmc`).
    const run::EarlyGpuContext early_gpu(argc, argv);
    std::unique_ptr<mpi::Environment> env;
    try {
        env = std::make_unique<mpi::Environment>(argc, argv);
    } catch (const std::exception& e) {
        print_error(e.what(), 0, 1);
        return 1;
    }
    const int world_rank = env->rank(), world_size = env->size();
    trace_moment("MPI started");

    CLI::App app{
        "cudag: causal structure learning (PC-stable, FCI/RFCI, PCMCI, order MCMC) from a laptop CPU to GPU clusters"};
    app.require_subcommand(1);
    app.set_version_flag("--version", CUDAG_VERSION);

    Commands commands;
    add_commands(app, commands);
    const PcArgs& pa = commands.pc;
    const PcmciArgs& pm = commands.pcmci;

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (world_rank != 0) return e.get_exit_code() == 0 ? 0 : 2;
        if (e.get_exit_code() == 0) return app.exit(e);
        std::string msg = e.what();
        for (char& ch : msg)
            if (ch == '\n') ch = ' ';
        std::fprintf(stderr, "cudag: error: %s (see --help)\n", msg.c_str());
        return 2;
    }

    std::unique_ptr<mpi::Communicator> comm;
    try {
        comm = env->world();
        if (decorate) comm = decorate(std::move(comm));
        Commands& c = commands;
        const auto dispatch = [&]() -> int {
            if (c.pc_cmd->parsed()) return run_pc_command(c.pc, join_args(argc, argv), *env, comm);
            if (c.fci_cmd->parsed()) return run_fci_command(c.fci, join_args(argc, argv), *env, comm);
            if (c.mcmc_cmd->parsed()) return run_mcmc_command(c.mcmc, join_args(argc, argv), *env, comm);
            if (c.pcmci_cmd->parsed())
                return run_pcmci_command(c.pcmci, join_args(argc, argv), *comm, env->local_rank());
            if (world_rank != 0) return 0;  // the other subcommands run on rank 0 only
            if (c.simulate_cmd->parsed()) return run_simulate(*c.simulate_cmd, c.simulate);
            if (c.citest_cmd->parsed()) return run_citest(c.citest);
            if (c.compare_cmd->parsed()) return run_compare(c.compare);
            if (c.score_cmd->parsed()) return run_score(c.score);
            if (c.info_cmd->parsed()) return run_info();
            return -1;  // no subcommand matched (CLI11 requires one): falls through below
        };
        const int rc = dispatch();
        trace_moment("command done");  // every command's end, for lining up with a launcher
        if (rc >= 0) return rc;
    } catch (const mpi::PeerFailed&) {
        return 1;  // the failing rank reports
    } catch (const mpi::AgreedFailure& e) {
        print_error(e.what(), world_rank, world_size);
        return 1;
    } catch (const skeleton::StoppedAfterLevel& e) {
        if (world_rank == 0 && !pa.job.quiet) std::fprintf(stderr, "cudag: %s; continue with --resume\n", e.what());
        return 3;
    } catch (const pcmci::StoppedAfterTests& e) {
        if (world_rank == 0 && !pm.job.quiet) std::fprintf(stderr, "cudag: %s; continue with --resume\n", e.what());
        return 3;
    } catch (const std::bad_alloc&) {
        // An allocation the memory plan let through failed after all: the phase, not
        // "std::bad_alloc".
        print_error(out_of_memory_message(), world_rank, world_size);
        if (comm && comm->size() > 1) comm->abort(1);
        if (world_size > 1) env->abort(1);
        return 1;
    } catch (const std::exception& e) {
        // Not agreed with the other ranks (they may be waiting in a collective): end the job.
        print_error(e.what(), world_rank, world_size);
        if (comm && comm->size() > 1) comm->abort(1);
        if (world_size > 1) env->abort(1);  // e.g. failed while building the communicator
        return 1;
    }
    return 0;
}

}  // namespace cudag::cli
