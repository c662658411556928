// SPDX-License-Identifier: Apache-2.0
#include "pc/bootstrap.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>

#include "core/backend.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/trace.hpp"
#include "skeleton/engines.hpp"

namespace cudag::pc {

namespace {

/// The replicate's configuration: `cfg` without the whole run's hooks and checkpoint.
PcConfig replicate_config(const PcConfig& cfg) {
    PcConfig rc = cfg;
    rc.on_level = {};
    rc.on_level_start = {};
    rc.on_note = {};
    rc.on_checkpoint = {};
    rc.on_resume = {};
    rc.checkpoint.clear();
    rc.resume = false;
    rc.stop_after_level = -1;
    rc.distributed_records = false;
    rc.keep_pmax = false;  // only the graph counts: pMax is neither listed nor downloaded
    return rc;
}

/// Replicate r's whole result; its resample in `scratch` (whose memory the next replicate of
/// the same worker reuses).
PcResult replicate_result(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t r,
                          Dataset& scratch, const ReplicateLearner& learn = {}) {
    StepTrace trace;  // CUDAG_TRACE: a line per replicate, its steps' times
    trace.start();
    std::vector<std::int32_t> kept;
    replicate_data_into(data, cfg, b, r, kept, scratch, resolve_threads(cfg.backend.threads));
    const Dataset& d = scratch;
    trace.mark("resample");
    mpi::SerialCommunicator serial;
    PcResult res;
    PcConfig rc = replicate_config(cfg);
    if (trace_enabled()) rc.on_note = [&trace](const std::string& what) { trace.mark(what.c_str()); };
    if (static_cast<std::int64_t>(kept.size()) < data.n_vars && !cfg.knowledge.empty())
        rc.knowledge = bootstrap::knowledge_on(cfg.knowledge, kept);
    try {
        if (d.n_vars >= 2) res = learn ? learn.learn(d, rc) : run_pc(d, rc, serial);
    } catch (const InputError& e) {
        // A resample can fail where the data did not.
        const std::string what = e.what();
        if (what.find("bootstrap replicate") != std::string::npos) throw;
        // cg-lrt: a resample drawn with replacement repeats rows, and a small configuration
        // holding copies of one row has no covariance; subsamples do not repeat rows.
        const bool repeats = b.resample == bootstrap::Resample::Bootstrap && what.find(" is singular (") != std::string::npos;
        throw InputError("bootstrap replicate " + std::to_string(r) + ": " + what +
                         (repeats ? " (a bootstrap resample repeats rows: --resample half draws without repeats)" : ""));
    }
    trace.print(("replicate " + std::to_string(r)).c_str());
    if (learn && !res.pag) res.pag = Pag(static_cast<std::int32_t>(d.n_vars));  // fewer than two columns
    if (static_cast<std::int64_t>(kept.size()) == data.n_vars) return res;
    // The columns left out are isolated in the replicate's graph.
    if (res.pag) {
        Pag full(static_cast<std::int32_t>(data.n_vars));
        const Pag& g = *res.pag;
        for (std::int32_t i = 0; i < g.n(); ++i)
            for (std::int32_t j : g.neighbours(i))
                if (j > i)
                    full.add(kept[static_cast<std::size_t>(i)], kept[static_cast<std::size_t>(j)], g(j, i), g(i, j));
        res.pag = std::move(full);
        return res;
    }
    Pdag full{Graph(data.n_vars)};
    for (std::int32_t i = 0; i < res.cpdag.n(); ++i)
        for (std::int32_t j : res.cpdag.neighbours(i))
            if (j > i)
                full.set(kept[static_cast<std::size_t>(i)], kept[static_cast<std::size_t>(j)], res.cpdag.end(i, j),
                         res.cpdag.end(j, i));
    res.cpdag = std::move(full);
    return res;
}

/// The run's provenance from replicate 0's, adjusted to the whole run.
bootstrap::Provenance bootstrap_config(bootstrap::Provenance c, const Dataset& data, const bootstrap::Options& b,
                                       const mpi::Communicator& comm, std::int64_t replicate_samples, bool pag) {
    for (auto& [key, value] : c) {
        if (key == "algorithm") value = pag ? value + " bootstrap" : "pc-stable bootstrap";
        if (key == "ranks") value = std::to_string(comm.size());
        if (key == "communicator") value = comm.name();
        if (key == "n_samples") value = std::to_string(data.n_samples);
    }
    char consensus[32];
    std::snprintf(consensus, sizeof consensus, "%.17g", b.consensus);
    c.emplace_back("bootstrap_replicates", std::to_string(b.replicates));
    c.emplace_back("bootstrap_resample", bootstrap::to_string(b.resample));
    c.emplace_back("bootstrap_seed", std::to_string(b.seed));
    c.emplace_back("bootstrap_consensus", consensus);
    c.emplace_back("bootstrap_replicate_samples", std::to_string(replicate_samples));
    c.emplace_back("graph", "consensus of the bootstrap replicates (adjacency frequency >= bootstrap_consensus)");
    return c;
}

}  // namespace

void replicate_data_into(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t replicate,
                         std::vector<std::int32_t>& kept, Dataset& d, int threads) {
    const std::vector<std::int64_t> rows = bootstrap::resample_rows(data.n_samples, b, replicate);
    // bnlearn's pc.stable (the R face) resamples a data frame: every factor keeps its levels
    bootstrap::resample_into(data, rows, bootstrap::replicate_source(data.source, replicate), d, threads,
                             cfg.bnlearn_search);
    // CMIknn tests a constant column itself (p = 1), and its tie-break noise is keyed by the
    // column's index: its columns all stay. (Where none is dropped, d's memory moves out and
    // back.)
    if (!resolve_test(cfg, data).traits().constant_columns) {
        d = bootstrap::drop_constant_columns(std::move(d), kept);
        return;
    }
    kept.resize(static_cast<std::size_t>(d.n_vars));
    for (std::int32_t v = 0; v < d.n_vars; ++v) kept[static_cast<std::size_t>(v)] = v;
}

Dataset replicate_data(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t replicate,
                       std::vector<std::int32_t>& kept) {
    Dataset d;
    replicate_data_into(data, cfg, b, replicate, kept, d, 1);
    return d;
}

Pdag run_replicate(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t replicate) {
    Dataset scratch;
    return replicate_result(data, cfg, b, replicate, scratch).cpdag;
}

namespace {

/// What decides the counts: the run's (config_hash), the other learner's settings (FCI's
/// options) and B, the resampling and its seed (not --consensus, applied to the counts at
/// the end).
std::string bootstrap_hash(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b,
                           const ReplicateLearner& learn) {
    Digest h;
    h.add_string("cudag-pc-bootstrap-1");
    h.add_string(config_hash(data, cfg));
    if (learn) {
        h.add_string(learn.command);
        for (const io::CheckpointSetting& s : learn.settings) h.add_string(s.name).add_string(s.value);
    }
    h.add_value(b.replicates);
    h.add_string(bootstrap::to_string(b.resample));
    h.add_value(b.seed);
    return h.hex();
}

io::CheckpointSettings bootstrap_settings(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b,
                                          const ReplicateLearner& learn) {
    io::CheckpointSettings s{{io::kCheckpointCommand, learn ? learn.command : "cudag pc --bootstrap"}};
    const io::CheckpointSettings run = config_settings(data, cfg);
    s.insert(s.end(), run.begin(), run.end());
    if (learn) s.insert(s.end(), learn.settings.begin(), learn.settings.end());
    s.push_back({"--bootstrap", std::to_string(b.replicates)});
    s.push_back({"--resample", bootstrap::to_string(b.resample)});
    s.push_back({"--seed", std::to_string(b.seed)});
    return s;
}

/// Fisher-z replicates run at once on one GPU by default: a replicate of a DREAM5-sized set
/// spends more than half its time on the host (planning levels, unpacking results,
/// orienting), which others' kernels fill (B = 100 on one H100 of a 64-core host: 24
/// replicates a second one at a time, 29.9 four at once, 45.7 eight at once). Sixteen: one
/// GPU gains a little (B = 1,000 on one H200: 84.5 replicates a second at 8, 89.8 at 16),
/// and where several GPUs' replicates share the host, whose host steps then take longer
/// (a third in traces), more of them in flight keep each GPU busy (4 H200s of a 64-core
/// host: 277/s at 8 a GPU, 295/s at 16).
constexpr int kGpuReplicatesAtOnce = 16;

/// The GPUs this rank runs its replicates on: BackendContext::replicate_devices, or its
/// device alone.
std::vector<int> replicate_devices(const BackendContext& backend) {
    if (!backend.replicate_devices.empty()) return backend.replicate_devices;
    return {backend.device};
}

/// The free memory of `device` (bytes; 0 where it cannot be read).
double free_bytes(int device) {
    const std::optional<DeviceInfo> dev = gpu_device(device);
    return dev ? static_cast<double>(dev->free_bytes) : 0.0;
}

/// How a rank runs its replicates: `per_round` of them between two agreements of the
/// ranks, `concurrent` of them at once (ReplicatePipeline's workers, each bound to GPU
/// `worker mod devices` of the rank's replicate devices). On the CPU engine one per thread
/// (a small replicate keeps few threads busy, and whole replicates side by side need no
/// synchronisation), as many as half the available host memory holds and at most a rank's
/// share, in rounds of that many. On GPUs, in rounds of about an eighth of a rank's share
/// (at most 16 a GPU), so that progress and checkpoints come often; Fisher-z replicates
/// kGpuReplicatesAtOnce at once on each GPU (each engine on a stream of its own), as many
/// as half the free memory of the rank's first GPU holds (its others alike, as a node's
/// GPUs are: asking them would wait for their contexts, which the driver makes one after
/// the other) and at most half a rank's share, others one at a time on each GPU; in all,
/// as many as half the available host memory holds.
/// per_round is the least over the ranks, so that their rounds match.
struct ReplicateBatch {
    int per_round = 1, concurrent = 1;
};
ReplicateBatch concurrent_replicates(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b,
                                     mpi::Communicator& comm) {
    skeleton::TestPolicy policy;
    policy.exhaustive = cfg.compat == skeleton::Compat::CausalLearn;
    int batch = 1, concurrent = 1;
    mpi::run_agreed(comm, [&] {
        if (skeleton::picks_gpu(cfg.backend.kind, policy)) {
            const std::vector<int> devices = replicate_devices(cfg.backend);
            const auto gpus = static_cast<std::int64_t>(devices.size());
            const std::int64_t share = (b.replicates + comm.size() - 1) / comm.size();
            batch = static_cast<int>(std::clamp<std::int64_t>((share + 7) / 8, 1, 16 * gpus));
            int at_once = 1;  // on each GPU
            if (resolve_test(cfg, data).traits().shared_matrix) {  // Fisher-z: C on each GPU
                const int asked = cfg.backend.tunables.replicates_at_once;
                at_once = asked > 0 ? asked : kGpuReplicatesAtOnce;
                // A replicate's device memory: C twice over (C and the levels' buffers) and the
                // standardised data with its upload.
                const double n = static_cast<double>(data.n_vars), m = static_cast<double>(data.n_samples);
                const double each = 16.0 * n * n + 16.0 * n * m + 1.0;
                if (asked == 0)
                    at_once = static_cast<int>(std::clamp(
                        std::min(0.5 * free_bytes(cfg.backend.device) / each, 0.5 * static_cast<double>(share) / gpus),
                        1.0, double(at_once)));
            }
            concurrent = static_cast<int>(std::min<std::int64_t>(at_once * gpus, share));
            if (cfg.backend.tunables.replicates_at_once == 0) {
                // And as many as half the available host memory holds (each its resample).
                const double host_each = estimate_host_bytes(data, cfg, true) +
                                         8.0 * static_cast<double>(data.n_vars) * static_cast<double>(data.n_samples) +
                                         1.0;
                const double fits = 0.5 * static_cast<double>(available_host_bytes()) / host_each;
                concurrent = static_cast<int>(std::clamp<double>(fits, 1.0, concurrent));
            }
            return;
        }
        PcConfig probe = cfg;
        probe.backend.kind = BackendKind::Cpu;
        // The engine's host memory and the resample's copy of the data.
        const double each = estimate_host_bytes(data, probe, false) +
                            8.0 * static_cast<double>(data.n_vars) * static_cast<double>(data.n_samples) + 1.0;
        const double fits = 0.5 * static_cast<double>(available_host_bytes()) / each;
        // No more than a rank's share: fewer replicates than threads share the threads out
        // (B = 3 on 64 threads: 21 threads each, not one each and 61 idle).
        const double share = static_cast<double>((b.replicates + comm.size() - 1) / comm.size());
        batch = concurrent = static_cast<int>(
            std::max(1.0, std::min({static_cast<double>(resolve_threads(cfg.backend.threads)), fits, share})));
    });
    ReplicateBatch out;
    out.per_round = comm.allreduce(batch, mpi::ReduceOp::Min);
    out.concurrent = std::max(1, concurrent);  // this rank's own: the counts do not depend on it
    return out;
}

/// run_bootstrap, with replicate 0's whole result in `first` on rank 0 (its provenance);
/// with `learn`, each replicate's PAG counted.
bootstrap::Table count_replicates(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b,
                                  mpi::Communicator& comm, const bootstrap::RoundCallback& on_round, PcResult& first,
                                  const ReplicateLearner& learn = {}) {
    // The options checked on the whole data first, so that their errors read as a run's.
    mpi::run_agreed(comm, [&] {
        bootstrap::validate(b, data.n_samples);
        validate(cfg, data);
        if (cfg.resume && cfg.checkpoint.empty()) throw InputError("--resume needs --checkpoint FILE");
        // A column constant in the data is refused as a run refuses it; one constant in a
        // resample only is left out of that replicate (replicate_data).
        if (!resolve_test(cfg, data).traits().constant_columns)
            for (std::int64_t v = 0; v < data.n_vars; ++v)
                if (bootstrap::constant_column(data, v))
                    throw InputError(data.source + ": column '" + data.names[static_cast<std::size_t>(v)] +
                                     "' is constant: it has no variance to test");
    });
    const ReplicateBatch batch = concurrent_replicates(data, cfg, b, comm);
    const bootstrap::Schedule schedule =
        bootstrap::agree_schedule(comm, batch.per_round, batch.concurrent, resolve_threads(cfg.backend.threads));
    bootstrap::Checkpoint ckpt;
    if (!cfg.checkpoint.empty()) {
        ckpt.path = cfg.checkpoint;
        ckpt.hash = bootstrap_hash(data, cfg, b, learn);
        ckpt.settings = bootstrap_settings(data, cfg, b, learn);
        ckpt.resume = cfg.resume;
        ckpt.keep = cfg.keep_checkpoint;
        ckpt.n_vars = data.n_vars;
        if (cfg.stop_after_level >= 0) ckpt.stop_after = cfg.stop_after_level;
        // Replicate 0's provenance (or, resumed, the checkpoint's: replicate 0 is not run again).
        ckpt.provenance = [&first] { return first.config; };
        ckpt.on_checkpoint = cfg.on_checkpoint;
        ckpt.on_resume = [&first, &cfg](int done, bootstrap::Provenance kept) {
            first.config = std::move(kept);
            if (cfg.on_resume) cfg.on_resume(done);
        };
    }
    const std::vector<int> devices = replicate_devices(cfg.backend);
    // Each worker's resample, its memory reused from one replicate to the next (the worker's
    // thread alone touches it).
    std::vector<Dataset> scratch(static_cast<std::size_t>(schedule.concurrent));
    const bootstrap::ReplicateFn replicate = [&](std::int64_t r, int each, int worker) {
        PcConfig rc = cfg;
        rc.backend.threads = each;
        if (devices.size() > 1) {
            rc.backend.device = devices[static_cast<std::size_t>(worker) % devices.size()];
            rc.backend.device_info.reset();
        }
        // Replicates at once on a GPU: each engine's work on a stream of its own.
        rc.backend.own_stream = schedule.concurrent > static_cast<int>(devices.size());
        PcResult res;
        try {
            res = replicate_result(data, rc, b, r, scratch[static_cast<std::size_t>(worker)], learn);
        } catch (const OutOfMemory& e) {
            if (devices.size() < 2) throw;
            // Several GPUs: which one ran out (another process may hold its memory).
            throw OutOfMemory("bootstrap replicate " + std::to_string(r) + " on GPU " +
                              std::to_string(rc.backend.device) + ": " + e.what());
        }
        bootstrap::ReplicateEdges g = learn ? bootstrap::edges_of(*res.pag) : bootstrap::edges_of(res.cpdag);
        if (r == 0) first = std::move(res);  // one thread only: replicate 0's
        return g;
    };
    return bootstrap::count_replicates(b, learn ? bootstrap::TableKind::Pag : bootstrap::TableKind::Cpdag, comm,
                                       replicate, schedule, on_round, cfg.checkpoint.empty() ? nullptr : &ckpt);
}

}  // namespace

bootstrap::Table run_bootstrap(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b,
                               mpi::Communicator& comm, const bootstrap::RoundCallback& on_round) {
    PcResult unused;
    return count_replicates(data, cfg, b, comm, on_round, unused);
}

PcResult bootstrap_pc(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, mpi::Communicator& comm,
                      const bootstrap::RoundCallback& on_round) {
    const auto t0 = std::chrono::steady_clock::now();
    PcResult first;
    bootstrap::Table t = count_replicates(data, cfg, b, comm, on_round, first);
    PcResult r;
    r.names = data.names;
    r.level_labels = data.levels;
    r.n_samples = data.n_samples;
    if (comm.rank() != 0) {
        r.bootstrap = std::move(t);
        return r;
    }
    r.cpdag = bootstrap::consensus_graph(t, data.n_vars);
    r.skeleton = r.cpdag.skeleton();
    r.config = bootstrap_config(std::move(first.config), data, b, comm, bootstrap::replicate_samples(b, data.n_samples),
                                false);
    r.bootstrap = std::move(t);
    r.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

PcResult bootstrap_pag(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, mpi::Communicator& comm,
                       const ReplicateLearner& learn, const bootstrap::RoundCallback& on_round) {
    CUDAG_EXPECTS(static_cast<bool>(learn), "bootstrap_pag: no learner");
    CUDAG_EXPECTS(!learn.command.empty(), "bootstrap_pag: the learner's command is not named");
    const auto t0 = std::chrono::steady_clock::now();
    PcResult first;
    bootstrap::Table t = count_replicates(data, cfg, b, comm, on_round, first, learn);
    PcResult r;
    r.names = data.names;
    r.level_labels = data.levels;
    r.n_samples = data.n_samples;
    r.cpdag = Pdag(Graph(data.n_vars));
    if (comm.rank() != 0) {
        r.bootstrap = std::move(t);
        return r;
    }
    r.pag = bootstrap::consensus_pag(t, data.n_vars);
    r.skeleton = r.pag->skeleton();
    r.config =
        bootstrap_config(std::move(first.config), data, b, comm, bootstrap::replicate_samples(b, data.n_samples), true);
    r.bootstrap = std::move(t);
    r.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

PcResult as_pc_result(bootstrap::Result b) {
    PcResult r;
    r.names = std::move(b.names);
    r.level_labels = std::move(b.level_labels);
    r.n_samples = b.n_samples;
    r.cpdag = std::move(b.consensus);
    r.skeleton = r.cpdag.skeleton();
    r.config = std::move(b.config);
    r.bootstrap = std::move(b.table);
    r.seconds_total = b.seconds_total;
    return r;
}

}  // namespace cudag::pc
