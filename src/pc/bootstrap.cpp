// SPDX-License-Identifier: Apache-2.0
#include "pc/bootstrap.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "core/backend.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/trace.hpp"
#include "io/checkpoint_file.hpp"
#include "io/hdf5_file.hpp"
#include "io/writers.hpp"
#include "skeleton/engines.hpp"

namespace cudag::pc {

namespace {

/// The stream of replicate r: a tag in the high bits keeps the resamples' streams apart
/// from the other users of the same --seed (CMIknn's permutations and noise).
constexpr std::uint64_t kResampleStreamTag = 0xB007'5A3D'0000'0000ull;

/// Pair (i, j), i < j, as one sortable key.
std::uint64_t pair_key(std::int32_t i, std::int32_t j) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) | static_cast<std::uint32_t>(j);
}

/// The most kinds of an adjacent pair a table counts (a PAG's nine).
constexpr int kMaxKinds = kPagKinds - 1;

/// Replicates adjacent by kind (PC's: i --> j, j --> i, i --- j, i <-> j, the others 0; a
/// PAG's: edge_kinds()' order), per pair key.
using PairCounts = std::unordered_map<std::uint64_t, std::array<std::int32_t, kMaxKinds>>;

void count_edges(const ReplicateEdges& edges, PairCounts& counts) {
    for (const PairKind& e : edges) {
        CUDAG_ASSERT(e.i < e.j && e.kind >= 1 && e.kind <= kMaxKinds);
        ++counts[pair_key(e.i, e.j)][static_cast<std::size_t>(e.kind) - 1];
    }
}

/// One record of a rank's counts on the wire.
struct CountRecord {
    std::uint64_t key;
    std::int32_t c[kMaxKinds];
};

std::vector<std::byte> pack(const PairCounts& counts) {
    std::vector<std::byte> blob(counts.size() * sizeof(CountRecord));
    std::size_t at = 0;
    for (const auto& [key, c] : counts) {
        CountRecord rec{key, {}};
        for (int k = 0; k < kMaxKinds; ++k) rec.c[k] = c[static_cast<std::size_t>(k)];
        std::memcpy(blob.data() + at, &rec, sizeof rec);
        at += sizeof rec;
    }
    return blob;
}

void unpack_into(const std::vector<std::byte>& blob, PairCounts& counts) {
    CUDAG_ASSERT(blob.size() % sizeof(CountRecord) == 0);
    for (std::size_t at = 0; at < blob.size(); at += sizeof(CountRecord)) {
        CountRecord rec{};
        std::memcpy(&rec, blob.data() + at, sizeof rec);
        auto& c = counts[rec.key];
        for (int k = 0; k < kMaxKinds; ++k) c[static_cast<std::size_t>(k)] += rec.c[k];
    }
}

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

/// Whether every value of column v is the same.
bool constant_column(const Dataset& d, std::int64_t v) {
    const double* x = d.column(v);
    for (std::int64_t s = 1; s < d.n_samples; ++s)
        if (x[s] != x[0]) return false;
    return true;
}

/// The columns `kept` of `d`, in their order.
Dataset select_columns(const Dataset& d, const std::vector<std::int32_t>& kept) {
    Dataset out;
    out.n_samples = d.n_samples;
    out.n_vars = static_cast<std::int64_t>(kept.size());
    out.source = d.source;
    out.values.reserve(static_cast<std::size_t>(out.n_vars * out.n_samples));
    for (std::int32_t v : kept) {
        out.values.insert(out.values.end(), d.column(v), d.column(v) + d.n_samples);
        out.names.push_back(d.names[static_cast<std::size_t>(v)]);
        if (d.discrete()) out.levels.push_back(d.levels[static_cast<std::size_t>(v)]);
    }
    return out;
}

/// Replicate r's whole result; its resample in `scratch` (whose memory the next replicate of
/// the same worker reuses).
PcResult replicate_result(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t r,
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
        rc.knowledge = knowledge_on(cfg.knowledge, kept);
    try {
        if (d.n_vars >= 2) res = learn ? learn(d, rc) : run_pc(d, rc, serial);
    } catch (const InputError& e) {
        // A resample can fail where the data did not.
        const std::string what = e.what();
        if (what.find("bootstrap replicate") != std::string::npos) throw;
        throw InputError("bootstrap replicate " + std::to_string(r) + ": " + what);
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
std::vector<std::pair<std::string, std::string>> bootstrap_config(std::vector<std::pair<std::string, std::string>> c,
                                                                  const Dataset& data, const BootstrapOptions& b,
                                                                  const mpi::Communicator& comm,
                                                                  std::int64_t replicate_samples, bool pag) {
    for (auto& [key, value] : c) {
        if (key == "algorithm") value = pag ? value + " bootstrap" : "pc-stable bootstrap";
        if (key == "ranks") value = std::to_string(comm.size());
        if (key == "communicator") value = comm.name();
        if (key == "n_samples") value = std::to_string(data.n_samples);
    }
    char consensus[32];
    std::snprintf(consensus, sizeof consensus, "%.17g", b.consensus);
    c.emplace_back("bootstrap_replicates", std::to_string(b.replicates));
    c.emplace_back("bootstrap_resample", to_string(b.resample));
    c.emplace_back("bootstrap_seed", std::to_string(b.seed));
    c.emplace_back("bootstrap_consensus", consensus);
    c.emplace_back("bootstrap_replicate_samples", std::to_string(replicate_samples));
    c.emplace_back("graph", "consensus of the bootstrap replicates (adjacency frequency >= bootstrap_consensus)");
    return c;
}

}  // namespace

/// `k` over the variables `kept` only (renumbered in their order): the constraints among
/// them, the others dropped.
Knowledge knowledge_on(const Knowledge& k, const std::vector<std::int32_t>& kept) {
    const auto n = static_cast<std::int32_t>(kept.size());
    Knowledge out(n);
    for (std::int32_t a = 0; a < n; ++a)
        if (k.tier(kept[a]) >= 0) out.set_tier(a, k.tier(kept[a]));
    const auto& pairs = k.undirected_required_pairs();
    for (std::int32_t a = 0; a < n; ++a)
        for (std::int32_t b = 0; b < n; ++b) {
            if (a == b) continue;
            const std::int32_t x = kept[a], y = kept[b];
            if (k.forbidden(x, y) && !(k.tier(x) >= 0 && k.tier(y) >= 0 && k.tier(x) > k.tier(y)))
                out.forbid_direction(a, b);
            if (k.required(x, y)) out.require_direction(a, b);
            if (a < b && pairs.count({x, y})) out.require_pair(a, b);
        }
    return out;
}

const char* to_string(Resample r) { return r == Resample::Half ? "half" : "bootstrap"; }

Resample parse_resample(const std::string& s) {
    if (s == "bootstrap") return Resample::Bootstrap;
    if (s == "half") return Resample::Half;
    throw InputError("unknown --resample '" + s + "' (available: bootstrap, half)");
}

void validate(const BootstrapOptions& b, std::int64_t n_samples) {
    if (b.replicates < 1) throw InputError("--bootstrap must be at least 1, got " + std::to_string(b.replicates));
    if (b.replicates > (std::int64_t{1} << 30))
        throw InputError("--bootstrap must be at most 2^30, got " + std::to_string(b.replicates));
    if (!(b.consensus > 0.0 && b.consensus <= 1.0)) {
        std::ostringstream os;
        os << "--consensus must be in (0, 1], got " << b.consensus;
        throw InputError(os.str());
    }
    const std::int64_t need = b.resample == Resample::Half ? 2 : 1;
    if (n_samples < need)
        throw InputError("--resample " + std::string(to_string(b.resample)) + " needs at least " +
                         std::to_string(need) + " samples, the data have " + std::to_string(n_samples));
}

std::vector<std::int64_t> resample_rows(std::int64_t n_samples, const BootstrapOptions& b, std::int64_t replicate) {
    CUDAG_EXPECTS(n_samples >= 0 && replicate >= 0, "resample_rows: negative size or replicate");
    CounterRng rng(b.seed, kResampleStreamTag + static_cast<std::uint64_t>(replicate));
    // floor(u * k) for u in [0, 1): an index below k (the min guards k near 2^53).
    const auto below = [&rng](std::int64_t k) {
        const auto x = static_cast<std::int64_t>(rng.uniform() * static_cast<double>(k));
        return std::min(x, k - 1);
    };
    std::vector<std::int64_t> rows;
    if (b.resample == Resample::Bootstrap) {
        rows.resize(static_cast<std::size_t>(n_samples));
        for (std::int64_t& r : rows) r = below(n_samples);
    } else {
        // A partial Fisher-Yates shuffle: the first floor(m/2) places drawn.
        std::vector<std::int64_t> all(static_cast<std::size_t>(n_samples));
        for (std::int64_t s = 0; s < n_samples; ++s) all[static_cast<std::size_t>(s)] = s;
        const std::int64_t k = n_samples / 2;
        for (std::int64_t t = 0; t < k; ++t)
            std::swap(all[static_cast<std::size_t>(t)], all[static_cast<std::size_t>(t + below(n_samples - t))]);
        rows.assign(all.begin(), all.begin() + k);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

namespace {

/// resample_data into `d` (its memory reused where it has the size), on `threads` threads.
void resample_into(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source, Dataset& d,
                   int threads) {
    d.n_vars = data.n_vars;
    d.n_samples = static_cast<std::int64_t>(rows.size());
    d.names = data.names;
    d.source = source;
    // The same size again keeps the values' memory (a worker's replicates one after another).
    d.values.resize(static_cast<std::size_t>(d.n_vars * d.n_samples));
    if (data.discrete())
        d.levels.resize(static_cast<std::size_t>(d.n_vars));
    else
        d.levels.clear();
    // Column by column, each column on one thread: the same values on any number of threads.
    parallel_for(0, d.n_vars, threads, 64, [&](std::int64_t v, int) {
        const double* from = data.column(v);
        double* to = d.column(v);
        for (std::int64_t s = 0; s < d.n_samples; ++s) to[s] = from[rows[static_cast<std::size_t>(s)]];
        if (!data.discrete()) return;
        // Discrete: only the levels the resample holds, in their order (as the reader codes
        // the written labels).
        const auto& levels = data.levels[static_cast<std::size_t>(v)];
        auto& kept_levels = d.levels[static_cast<std::size_t>(v)];
        kept_levels.clear();
        std::vector<std::int64_t> code(levels.size(), -1);
        for (std::int64_t s = 0; s < d.n_samples; ++s) code[static_cast<std::size_t>(to[s])] = 0;
        std::int64_t next = 0;
        for (std::size_t k = 0; k < levels.size(); ++k)
            if (code[k] == 0) {
                code[k] = next++;
                kept_levels.push_back(levels[k]);
            }
        for (std::int64_t s = 0; s < d.n_samples; ++s)
            to[s] = static_cast<double>(code[static_cast<std::size_t>(to[s])]);
    });
}

}  // namespace

Dataset resample_data(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source) {
    Dataset d;
    resample_into(data, rows, source, d, 1);
    return d;
}

void replicate_data_into(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t replicate,
                         std::vector<std::int32_t>& kept, Dataset& d, int threads) {
    const std::vector<std::int64_t> rows = resample_rows(data.n_samples, b, replicate);
    resample_into(data, rows, data.source + " (bootstrap replicate " + std::to_string(replicate) + ")", d, threads);
    // CMIknn tests a constant column itself (p = 1), and its tie-break noise is keyed by the
    // column's index: its columns all stay. (Where none is dropped, d's memory moves out and
    // back.)
    if (resolve_test(cfg, data).kind != skeleton::TestKind::CmiKnn) {
        d = drop_constant_columns(std::move(d), kept);
        return;
    }
    kept.resize(static_cast<std::size_t>(d.n_vars));
    for (std::int32_t v = 0; v < d.n_vars; ++v) kept[static_cast<std::size_t>(v)] = v;
}

Dataset replicate_data(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t replicate,
                       std::vector<std::int32_t>& kept) {
    Dataset d;
    replicate_data_into(data, cfg, b, replicate, kept, d, 1);
    return d;
}

Dataset drop_constant_columns(Dataset d, std::vector<std::int32_t>& kept) {
    kept.clear();
    for (std::int64_t v = 0; v < d.n_vars; ++v)
        if (!constant_column(d, v)) kept.push_back(static_cast<std::int32_t>(v));
    if (static_cast<std::int64_t>(kept.size()) == d.n_vars) return d;
    return select_columns(d, kept);
}

BootstrapKind bootstrap_kind(const Pdag& g, std::int32_t i, std::int32_t j) {
    const Mark at_i = g.end(i, j);
    if (at_i == Mark::None) return kNoEdge;
    const Mark at_j = g.end(j, i);
    if (at_i == Mark::Tail) return at_j == Mark::Arrow ? kForward : kUndirected;
    return at_j == Mark::Arrow ? kBidirected : kBackward;
}

Pdag run_replicate(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t replicate) {
    Dataset scratch;
    return replicate_result(data, cfg, b, replicate, scratch).cpdag;
}

namespace {

/// Seconds between two checkpoints of a bootstrap run (at round boundaries).
constexpr double kCheckpointSeconds = 30.0;

constexpr io::CheckpointFormat kBootstrapFormat{"cudag-pc-bootstrap-checkpoint-1", "PC bootstrap"};

/// What decides the counts: the run's (config_hash) and B, the resampling and its seed
/// (not --consensus, applied to the counts at the end).
std::string bootstrap_hash(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b) {
    Digest h;
    h.add_string("cudag-pc-bootstrap-1");
    h.add_string(config_hash(data, cfg));
    h.add_value(b.replicates);
    h.add_string(to_string(b.resample));
    h.add_value(b.seed);
    return h.hex();
}

io::CheckpointSettings bootstrap_settings(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b) {
    io::CheckpointSettings s{{io::kCheckpointCommand, "cudag pc --bootstrap"}};
    const io::CheckpointSettings run = config_settings(data, cfg);
    s.insert(s.end(), run.begin(), run.end());
    s.push_back({"--bootstrap", std::to_string(b.replicates)});
    s.push_back({"--resample", to_string(b.resample)});
    s.push_back({"--seed", std::to_string(b.seed)});
    return s;
}

/// The totals of replicates 0 .. done-1: /bootstrap/{done (int64), pairs (int32 K x 2),
/// adjacent (int32 K x 4: i --> j, j --> i, i --- j, i <-> j)} and replicate 0's
/// provenance /provenance/{keys, values}.
void write_bootstrap_checkpoint(const std::string& path, const std::string& hash,
                                const io::CheckpointSettings& settings, std::int64_t done, const PairCounts& all,
                                const std::vector<std::pair<std::string, std::string>>& provenance) {
    namespace h5 = io::h5;
    io::CheckpointFile file = io::CheckpointFile::create(path, kBootstrapFormat, hash, settings);
    const std::string& where = file.where();
    std::vector<std::uint64_t> keys;
    for (const auto& kv : all) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    std::vector<std::int32_t> pairs, adjacent;
    for (std::uint64_t key : keys) {
        pairs.push_back(static_cast<std::int32_t>(key >> 32));
        pairs.push_back(static_cast<std::int32_t>(key & 0xFFFFFFFFu));
        const auto& c = all.at(key);
        adjacent.insert(adjacent.end(), c.begin(), c.begin() + 4);
    }
    {
        h5::Handle g = h5::create_group(file.root(), "bootstrap", where);
        h5::write_array(g.get(), "done", std::vector<std::int64_t>{done}, {1}, where);
        h5::write_array(g.get(), "pairs", pairs, {keys.size(), 2}, where);
        h5::write_array(g.get(), "adjacent", adjacent, {keys.size(), 4}, where);
    }
    {
        std::vector<std::string> k, v;
        for (const auto& [key, value] : provenance) {
            k.push_back(key);
            v.push_back(value);
        }
        h5::Handle g = h5::create_group(file.root(), "provenance", where);
        h5::write_strings(g.get(), "keys", k, where);
        h5::write_strings(g.get(), "values", v, where);
    }
    file.commit();
}

/// Reads write_bootstrap_checkpoint's file, of a run of `replicates` replicates, into `all`
/// and `first.config`; returns done (at most `replicates`: a kept checkpoint holds them all).
std::int64_t read_bootstrap_checkpoint(const std::string& path, const std::string& hash,
                                       const io::CheckpointSettings& settings, std::int64_t n_vars,
                                       std::int64_t replicates, PairCounts& all, PcResult& first) {
    namespace h5 = io::h5;
    const io::CheckpointFile file = io::CheckpointFile::open(path, kBootstrapFormat, hash, settings);
    std::int64_t done = 0;
    file.read([&](hid_t root) {
        const std::string& where = file.where();
        h5::Handle g = h5::check_id(H5Gopen2(root, "bootstrap", H5P_DEFAULT), where + ": no /bootstrap");
        const auto d = h5::read_array<std::int64_t>(g.get(), "done", where);
        const auto pairs = h5::read_array<std::int32_t>(g.get(), "pairs", where);
        const auto adjacent = h5::read_array<std::int32_t>(g.get(), "adjacent", where);
        if (d.size() != 1 || d[0] < 0 || pairs.size() % 2 != 0 || adjacent.size() != 2 * pairs.size())
            throw InputError("its /bootstrap datasets do not fit together");
        done = d[0];
        if (done > replicates)
            throw InputError("/bootstrap/done = " + std::to_string(done) + " is not within [0, --bootstrap " +
                             std::to_string(replicates) + "]");
        for (std::size_t e = 0; e < pairs.size() / 2; ++e) {
            const std::int32_t i = pairs[2 * e], j = pairs[2 * e + 1];
            if (i < 0 || i >= j || j >= n_vars)
                throw InputError("pair (" + std::to_string(i) + ", " + std::to_string(j) + ") is out of range");
            auto& c = all[pair_key(i, j)];
            std::int64_t sum = 0;
            for (int k = 0; k < 4; ++k) {
                c[static_cast<std::size_t>(k)] = adjacent[4 * e + static_cast<std::size_t>(k)];
                sum += c[static_cast<std::size_t>(k)];
                if (c[static_cast<std::size_t>(k)] < 0) throw InputError("a negative count");
            }
            if (sum > done) throw InputError("a pair counted in more replicates than done");
        }
        h5::Handle p = h5::check_id(H5Gopen2(root, "provenance", H5P_DEFAULT), where + ": no /provenance");
        const auto keys = h5::read_strings(p.get(), "keys", where);
        const auto values = h5::read_strings(p.get(), "values", where);
        if (keys.size() != values.size()) throw InputError("its provenance keys and values differ in number");
        for (std::size_t k = 0; k < keys.size(); ++k) first.config.emplace_back(keys[k], values[k]);
    });
    return done;
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
ReplicateBatch concurrent_replicates(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b,
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
            if (resolve_test(cfg, data).kind == skeleton::TestKind::FisherZ) {
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

/// What count_rounds saves at round boundaries (PC's --checkpoint).
struct RoundCheckpoint {
    std::string path, hash;
    io::CheckpointSettings settings;
    bool keep = false;             ///< --keep-checkpoint: the finished run's totals saved too (done = B)
    std::int64_t stop_after = -1;  ///< testing: stop after this many replicates (-1: never)
    std::function<void(int)> on_checkpoint;
    const std::vector<std::pair<std::string, std::string>>* provenance = nullptr;
};

/// The rounds from replicate `resumed` on, rank 0's totals in `all` (holding the resumed
/// ones), with checkpoints when `ckpt` is given.
/// A replicate's counted edges (ReplicatePipeline's outcome).
using ReplicateCount = WorkerFn<ReplicateEdges>;

/// The pairs (i, j), i < j, adjacent in `g`, with their BootstrapKind.
ReplicateEdges edges_of(const Pdag& g) {
    ReplicateEdges out;
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (j > i) out.push_back({i, j, static_cast<std::int32_t>(bootstrap_kind(g, i, j))});
    return out;
}

/// The pairs (i, j), i < j, adjacent in `g`, with their pag_kind.
ReplicateEdges edges_of(const Pag& g) {
    ReplicateEdges out;
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (j > i) out.push_back({i, j, static_cast<std::int32_t>(pag_kind(g, i, j))});
    return out;
}

/// The table's rows count `kinds` kinds of adjacent pair (4: PC's; 9: a PAG's).
BootstrapTable count_rounds(const BootstrapOptions& b, ReplicateBatch rb, int threads, mpi::Communicator& comm,
                            const ReplicateCount& replicate, const ReplicateCallback& on_round, std::int64_t resumed,
                            PairCounts& all, const RoundCheckpoint* ckpt, int kinds = kBootstrapKinds - 1) {
    const int size = comm.size(), rank = comm.rank();
    PairCounts counts;  // this rank's counts since the last merge
    // Rank 0 merges every rank's counts into its totals.
    const auto merge = [&] {
        std::vector<std::vector<std::byte>> blobs = comm.gatherv(pack(counts), 0);
        counts.clear();
        for (const auto& blob : blobs) unpack_into(blob, all);
    };
    auto last_checkpoint = std::chrono::steady_clock::now();
    // Round k: rank p runs the replicates resumed + [(k size + p) batch, + batch), then the
    // ranks agree on their errors. Which rank counts a replicate changes no sum.
    const std::int64_t batch = rb.per_round;
    const std::int64_t per_round = static_cast<std::int64_t>(size) * batch;
    const std::int64_t left = b.replicates - resumed;
    const std::int64_t rounds = (left + per_round - 1) / per_round;
    const auto range = [=](std::int64_t k) {
        const std::int64_t lo = resumed + std::min(left, (k * size + rank) * batch);
        return std::pair<std::int64_t, std::int64_t>{lo, std::min(b.replicates, lo + batch)};
    };
    // Replicates run at once: by a team of workers that runs ahead of the rounds (the
    // threads shared among them; a graph does not depend on its threads), or one at a
    // time on this thread.
    std::optional<BasicReplicatePipeline<ReplicateEdges>> pipeline;
    if (rb.concurrent > 1 && rounds > 0) {
        const int each = std::max(1, threads / rb.concurrent);
        // Enough rounds ahead that every worker has a replicate while a round is counted.
        const int window = 2 + static_cast<int>((rb.concurrent + batch - 1) / batch);
        pipeline.emplace(replicate, range, rounds, batch, rb.concurrent, each, window);
    }
    for (std::int64_t k = 0; k < rounds; ++k) {
        std::exception_ptr err;
        try {
            std::vector<ReplicateEdges> graphs;
            if (pipeline) {
                graphs = pipeline->take(k);
            } else {
                const auto [lo, hi] = range(k);
                for (std::int64_t r = lo; r < hi; ++r) graphs.push_back(replicate(r, threads, 0));
            }
            for (const ReplicateEdges& g : graphs) count_edges(g, counts);
        } catch (...) {
            err = std::current_exception();
        }
        mpi::agree(comm, err);
        const std::int64_t done = resumed + std::min(left, (k + 1) * per_round);
        if (on_round && rank == 0) on_round(done, b.replicates);
        if (!ckpt) continue;
        // A checkpoint at this round's boundary: every kCheckpointSeconds, and before a
        // stop asked for testing (--stop-after-level N: after N replicates or more).
        const bool stop = ckpt->stop_after >= 0 && done >= ckpt->stop_after && done < b.replicates;
        const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint).count();
        // The same decision on every rank: rank 0's clock.
        std::int64_t write = !ckpt->path.empty() && done < b.replicates && (stop || since >= kCheckpointSeconds);
        comm.bcast(std::span<std::int64_t>(&write, 1), 0);
        if (write) {
            merge();
            mpi::run_agreed(comm, [&] {
                if (rank == 0)
                    write_bootstrap_checkpoint(ckpt->path, ckpt->hash, ckpt->settings, done, all, *ckpt->provenance);
            });
            if (ckpt->on_checkpoint) ckpt->on_checkpoint(static_cast<int>(done));
            last_checkpoint = std::chrono::steady_clock::now();
        }
        if (stop) throw skeleton::StoppedAfterLevel(static_cast<int>(done));
    }
    BootstrapTable t;
    t.replicates = b.replicates;
    t.resample = to_string(b.resample);
    t.seed = b.seed;
    t.consensus = b.consensus;
    t.pag = kinds == kMaxKinds;
    // The sums over the ranks on rank 0 (integers: any order gives the same counts).
    merge();
    // --keep-checkpoint: the finished run's totals (done = B), which a resume reports as they are.
    if (ckpt && ckpt->keep && !ckpt->path.empty()) {
        mpi::run_agreed(comm, [&] {
            if (rank == 0)
                write_bootstrap_checkpoint(ckpt->path, ckpt->hash, ckpt->settings, b.replicates, all,
                                           *ckpt->provenance);
        });
        if (ckpt->on_checkpoint) ckpt->on_checkpoint(static_cast<int>(b.replicates));
    }
    if (rank != 0) return t;
    std::vector<std::uint64_t> keys;
    keys.reserve(all.size());
    for (const auto& kv : all) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    t.pairs.reserve(2 * keys.size());
    t.counts.reserve(t.columns() * keys.size());
    for (std::uint64_t key : keys) {
        const auto& c = all[key];
        t.pairs.push_back(static_cast<std::int32_t>(key >> 32));
        t.pairs.push_back(static_cast<std::int32_t>(key & 0xFFFFFFFFu));
        std::int64_t adjacent = 0;
        for (const std::int32_t x : c) adjacent += x;
        t.counts.push_back(static_cast<std::int32_t>(b.replicates - adjacent));
        t.counts.insert(t.counts.end(), c.begin(), c.begin() + kinds);
    }
    return t;
}

/// Rank 0 reads checkpoint `rc`'s totals into `all` (its provenance into `first`); every
/// rank gets the number of replicates they hold.
std::int64_t resume_counts(mpi::Communicator& comm, const RoundCheckpoint& rc, std::int64_t n_vars,
                           std::int64_t replicates, PairCounts& all, PcResult& first) {
    std::int64_t resumed = 0;
    mpi::run_agreed(comm, [&] {
        if (comm.rank() == 0)
            resumed = read_bootstrap_checkpoint(rc.path, rc.hash, rc.settings, n_vars, replicates, all, first);
    });
    comm.bcast(std::span<std::int64_t>(&resumed, 1), 0);
    return resumed;
}

/// run_bootstrap, with replicate 0's whole result in `first` on rank 0 (its provenance);
/// with `learn`, each replicate's PAG counted (no checkpoints).
BootstrapTable count_replicates(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b,
                                mpi::Communicator& comm, const ReplicateCallback& on_round, PcResult& first,
                                const ReplicateLearner& learn = {}) {
    // The options checked on the whole data first, so that their errors read as a run's.
    mpi::run_agreed(comm, [&] {
        validate(b, data.n_samples);
        validate(cfg, data);
        if (cfg.resume && cfg.checkpoint.empty()) throw InputError("--resume needs --checkpoint FILE");
        if (learn && !cfg.checkpoint.empty())
            throw InputError("--checkpoint: a bootstrap of PAGs keeps no checkpoints (cudag pc --bootstrap does)");
        // A column constant in the data is refused as a run refuses it; one constant in a
        // resample only is left out of that replicate (replicate_data).
        if (resolve_test(cfg, data).kind != skeleton::TestKind::CmiKnn)
            for (std::int64_t v = 0; v < data.n_vars; ++v)
                if (constant_column(data, v))
                    throw InputError(data.source + ": column '" + data.names[static_cast<std::size_t>(v)] +
                                     "' is constant: it has no variance to test");
    });
    const ReplicateBatch batch = concurrent_replicates(data, cfg, b, comm);
    const int threads = resolve_threads(cfg.backend.threads);
    // Rank 0's totals of the replicates merged so far (at checkpoints, and resumed).
    PairCounts all;
    std::int64_t resumed = 0;  // replicates 0 .. resumed-1 counted in a resumed checkpoint
    RoundCheckpoint ckpt;
    if (!cfg.checkpoint.empty()) {
        ckpt.path = cfg.checkpoint;
        ckpt.hash = bootstrap_hash(data, cfg, b);
        ckpt.settings = bootstrap_settings(data, cfg, b);
        ckpt.stop_after = cfg.stop_after_level;
        ckpt.keep = cfg.keep_checkpoint;
        ckpt.on_checkpoint = cfg.on_checkpoint;
        ckpt.provenance = &first.config;
    }
    if (!cfg.checkpoint.empty() && cfg.resume) {
        resumed = resume_counts(comm, ckpt, data.n_vars, b.replicates, all, first);
        if (cfg.on_resume) cfg.on_resume(static_cast<int>(resumed));
    }
    const std::vector<int> devices = replicate_devices(cfg.backend);
    // Each worker's resample, its memory reused from one replicate to the next (the worker's
    // thread alone touches it).
    std::vector<Dataset> scratch(static_cast<std::size_t>(batch.concurrent));
    const ReplicateCount replicate = [&](std::int64_t r, int each, int worker) {
        PcConfig rc = cfg;
        rc.backend.threads = each;
        if (devices.size() > 1) {
            rc.backend.device = devices[static_cast<std::size_t>(worker) % devices.size()];
            rc.backend.device_info.reset();
        }
        // Replicates at once on a GPU: each engine's work on a stream of its own.
        rc.backend.own_stream = batch.concurrent > static_cast<int>(devices.size());
        PcResult res;
        try {
            res = replicate_result(data, rc, b, r, scratch[static_cast<std::size_t>(worker)], learn);
        } catch (const OutOfMemory& e) {
            if (devices.size() < 2) throw;
            // Several GPUs: which one ran out (another process may hold its memory).
            throw OutOfMemory("bootstrap replicate " + std::to_string(r) + " on GPU " +
                              std::to_string(rc.backend.device) + ": " + e.what());
        }
        ReplicateEdges g = learn ? edges_of(*res.pag) : edges_of(res.cpdag);
        if (r == 0) first = std::move(res);  // one thread only: replicate 0's
        return g;
    };
    return count_rounds(b, batch, threads, comm, replicate, on_round, resumed, all,
                        cfg.checkpoint.empty() ? nullptr : &ckpt, learn ? kMaxKinds : kBootstrapKinds - 1);
}

}  // namespace

BootstrapTable count_bootstrap(const BootstrapOptions& b, mpi::Communicator& comm, const ReplicateGraph& replicate,
                               const ReplicateCallback& on_round, int threads, int concurrent,
                               const BootstrapCheckpoint* ckpt) {
    mpi::run_agreed(comm, [&] { validate(b, std::numeric_limits<std::int64_t>::max()); });
    const ReplicateCount count = [&replicate](std::int64_t r, int threads, int worker) {
        return edges_of(replicate(r, threads, worker));
    };
    PairCounts all;
    ReplicateBatch batch;
    batch.concurrent = std::max(1, concurrent);
    batch.per_round = comm.allreduce(batch.concurrent, mpi::ReduceOp::Min);
    if (ckpt == nullptr || ckpt->path.empty())
        return count_rounds(b, batch, threads, comm, count, on_round, 0, all, nullptr);
    RoundCheckpoint rc;
    rc.path = ckpt->path;
    rc.hash = ckpt->hash;
    rc.settings = ckpt->settings;
    rc.stop_after = ckpt->stop_after;
    rc.keep = ckpt->keep;
    rc.on_checkpoint = ckpt->on_checkpoint;
    PcResult first;  // the provenance kept in the file
    first.config = ckpt->provenance;
    rc.provenance = &first.config;
    std::int64_t resumed = 0;
    if (ckpt->resume) {
        resumed = resume_counts(comm, rc, ckpt->n_vars, b.replicates, all, first);
        first.config = ckpt->provenance;  // this run's, in the next checkpoint
        if (ckpt->on_resume) ckpt->on_resume(static_cast<int>(resumed));
    }
    return count_rounds(b, batch, threads, comm, count, on_round, resumed, all, &rc);
}

BootstrapTable run_bootstrap(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b,
                             mpi::Communicator& comm, const ReplicateCallback& on_round) {
    PcResult unused;
    return count_replicates(data, cfg, b, comm, on_round, unused);
}

PcResult bootstrap_pc(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, mpi::Communicator& comm,
                      const ReplicateCallback& on_round) {
    const auto t0 = std::chrono::steady_clock::now();
    PcResult first;
    BootstrapTable t = count_replicates(data, cfg, b, comm, on_round, first);
    PcResult r;
    r.names = data.names;
    r.level_labels = data.levels;
    r.n_samples = data.n_samples;
    if (comm.rank() != 0) {
        r.bootstrap = std::move(t);
        return r;
    }
    r.cpdag = consensus_graph(t, data.n_vars);
    r.skeleton = r.cpdag.skeleton();
    r.config = bootstrap_config(std::move(first.config), data, b, comm,
                                b.resample == Resample::Half ? data.n_samples / 2 : data.n_samples, false);
    r.bootstrap = std::move(t);
    r.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

PcResult bootstrap_pag(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, mpi::Communicator& comm,
                       const ReplicateLearner& learn, const ReplicateCallback& on_round) {
    CUDAG_EXPECTS(static_cast<bool>(learn), "bootstrap_pag: no learner");
    const auto t0 = std::chrono::steady_clock::now();
    PcResult first;
    BootstrapTable t = count_replicates(data, cfg, b, comm, on_round, first, learn);
    PcResult r;
    r.names = data.names;
    r.level_labels = data.levels;
    r.n_samples = data.n_samples;
    r.cpdag = Pdag(Graph(data.n_vars));
    if (comm.rank() != 0) {
        r.bootstrap = std::move(t);
        return r;
    }
    r.pag = consensus_pag(t, data.n_vars);
    r.skeleton = r.pag->skeleton();
    r.config = bootstrap_config(std::move(first.config), data, b, comm,
                                b.resample == Resample::Half ? data.n_samples / 2 : data.n_samples, true);
    r.bootstrap = std::move(t);
    r.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

Pdag consensus_graph(const BootstrapTable& t, std::int64_t n) {
    Pdag g{Graph(n)};
    const double replicates = static_cast<double>(t.replicates);
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const std::int32_t* c = t.counts.data() + kBootstrapKinds * e;
        const std::int64_t adjacent = static_cast<std::int64_t>(t.replicates) - c[kNoEdge];
        // A quotient, correctly rounded: a frequency equal to the threshold's decimal value
        // (3/10 against 0.3) rounds to the same double.
        if (adjacent == 0 || static_cast<double>(adjacent) / replicates < t.consensus) continue;
        int best = kUndirected;
        for (int k : {kForward, kBackward, kBidirected})
            if (c[k] > c[best]) best = k;
        switch (best) {
            case kForward:
                g.set(i, j, Mark::Tail, Mark::Arrow);
                break;
            case kBackward:
                g.set(i, j, Mark::Arrow, Mark::Tail);
                break;
            case kBidirected:
                g.set(i, j, Mark::Arrow, Mark::Arrow);
                break;
            default:
                g.set(i, j, Mark::Tail, Mark::Tail);
                break;
        }
    }
    return g;
}

void write_frequencies_tsv(const BootstrapTable& t, const Pdag& consensus, const std::vector<std::string>& names,
                           const std::string& path) {
    static const char* const marks[kBootstrapKinds] = {"", "-->", "<--", "---", "<->"};
    io::TextFile f(path);
    f.write("source\ttarget\tadjacency\tnone\t-->\t<--\t---\t<->\tconsensus\n");
    const double replicates = static_cast<double>(t.replicates);
    std::string line;
    char num[32];
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const std::int32_t* c = t.counts.data() + kBootstrapKinds * e;
        line = io::tsv_escape(names[static_cast<std::size_t>(i)]);
        line += '\t';
        line += io::tsv_escape(names[static_cast<std::size_t>(j)]);
        std::snprintf(num, sizeof num, "\t%.6g", static_cast<double>(t.replicates - c[kNoEdge]) / replicates);
        line += num;
        for (int k = 0; k < kBootstrapKinds; ++k) {
            std::snprintf(num, sizeof num, "\t%.6g", static_cast<double>(c[k]) / replicates);
            line += num;
        }
        line += '\t';
        line += marks[bootstrap_kind(consensus, i, j)];
        line += '\n';
        f.write(line);
    }
    f.close();
}

}  // namespace cudag::pc
