// SPDX-License-Identifier: Apache-2.0
// What every run of the library layer shares (src/run/): the data reader of an in-process
// caller, the output claim before any work, --threads, the verbose peak-memory line.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/knowledge.hpp"
#include "core/memory.hpp"
#include "core/missing.hpp"
#include "core/parallel.hpp"
#include "io/checkpoint_file.hpp"
#include "io/checkpoint_lock.hpp"
#include "io/dataset_io.hpp"
#include "io/output_set.hpp"
#include "io/table_reader.hpp"
#include "io/trace_log.hpp"
#include "io/writers.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/progress.hpp"

namespace cudag::run {

/// A setting that a front end may leave at its default as it parses it: "" stays unset,
/// any other word is `parse(word)` (the setting's one parse function, whose InputError
/// names the option and its choices).
template <class Parse>
auto parse_unless_empty(const std::string& word, Parse parse) -> std::optional<decltype(parse(word))> {
    if (word.empty()) return std::nullopt;
    return parse(word);
}

/// The data set for the reading options the job asks for (labels for a discrete test,
/// numbers for Fisher-z, missing cells kept or not, ...); empty: read the job's data file.
using DataReader = std::function<Dataset(const io::ReadOptions&)>;

/// `reader(options)` when there is one, else io::read_dataset(path, dataset, options).
inline Dataset read_data(const DataReader& reader, const std::string& path, const std::string& dataset,
                         const io::ReadOptions& options) {
    return reader ? reader(options) : io::read_dataset(path, dataset, options);
}
inline Dataset read_data(const DataReader& reader, const std::string& path, const std::string& dataset,
                         io::TableMode mode) {
    io::ReadOptions o;
    o.mode = mode;
    return read_data(reader, path, dataset, o);
}

/// `reader` when there is one; else, with `na_values` given, a reader of `path` that treats
/// them as missing values; else none (read_data reads the file).
inline DataReader with_na_values(DataReader reader, const std::string& path, const std::string& dataset,
                                 const std::vector<std::string>& na_values) {
    if (reader || na_values.empty()) return reader;
    return [path, dataset, na_values](const io::ReadOptions& options) {
        io::ReadOptions o = options;
        o.na_values = na_values;
        return io::read_dataset(path, dataset, o);
    };
}

/// What a command that tests does with its table's cells beyond the test's mode: missing
/// cells (--missing) and the columns whose type the user names (--discrete-columns,
/// --continuous-columns).
struct DataOptions {
    MissingPolicy missing = MissingPolicy::Error;
    io::ColumnTypes columns;
};

/// The options as a command holds them (--missing parsed, column names).
inline DataOptions data_options(MissingPolicy missing, const std::vector<std::string>& discrete_columns,
                                const std::vector<std::string>& continuous_columns) {
    DataOptions o;
    o.missing = missing;
    o.columns.discrete = discrete_columns;
    o.columns.continuous = continuous_columns;
    return o;
}

/// The reading options of `mode` under `o`: missing cells kept unless --missing error.
inline io::ReadOptions read_options(io::TableMode mode, const DataOptions& o) {
    io::ReadOptions r;
    r.mode = mode;
    r.keep_missing = o.missing != MissingPolicy::Error;
    return r;
}

/// After reading: the named columns' types, then the missing cells as --missing says
/// (listwise: the incomplete rows removed, told through `note`; testwise: a column missing
/// in every row refused). Returns the rows removed.
inline std::int64_t prepare_data(Dataset& d, const DataOptions& o,
                                 const std::function<void(const std::string&)>& note = {}) {
    io::apply_column_types(d, o.columns);
    if (d.missing == 0) return 0;
    check_missing_columns(d);
    if (o.missing != MissingPolicy::Listwise) return 0;
    const std::int64_t rows = d.n_samples;
    const std::int64_t dropped = drop_incomplete_rows(d);
    if (note)
        note("listwise deletion: removed " + std::to_string(dropped) + " of " + std::to_string(rows) +
             " rows with a missing cell");
    return dropped;
}

/// Verbose: every rank's peak resident memory, printed by rank 0 as one line
/// ("<label>: peak memory per rank: 0 1234 MiB, 1 ...", MiB so that runs compare): over the whole run, the larger of
/// `earlier` (a peak taken before restart_peak_resident, 0 for none) and the peak since;
/// with `earlier`, a second line gives the peak since the restart ("<since>: ..."). Collective.
inline void report_peak_memory(mpi::Communicator& comm, const std::string& label, std::int64_t earlier = 0,
                               const std::string& since = "") {
    const std::int64_t now = peak_resident_bytes();
    const std::vector<std::int64_t> whole = comm.allgather(std::max(now, earlier));
    const std::vector<std::int64_t> recent = comm.allgather(now);
    if (comm.rank() != 0) return;
    const auto line = [&](const std::string& what, const std::vector<std::int64_t>& peaks) {
        std::string out = label + ": " + what + ":";
        for (std::size_t r = 0; r < peaks.size(); ++r)
            out += (r ? ", " : " ") + std::to_string(r) + " " + std::to_string(peaks[r] >> 20) + " MiB";
        skeleton::print_line(out);
    };
    line("peak memory per rank", whole);
    if (earlier > 0) line(since, recent);
}

/// The non-empty items of a comma-separated list.
inline std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

/// `items` without repeats, in the order of their first appearance (--format edges,edges
/// writes the edge list once).
inline std::vector<std::string> unique_items(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    for (const std::string& s : items)
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    return out;
}

/// How a command treats --checkpoint FILE: --resume continues it; --overwrite-checkpoint
/// replaces it; neither refuses a FILE that exists (io::check_checkpoint_start).
struct CheckpointUse {
    const std::string& path;
    bool resume = false, overwrite = false;
    /// The run keeps a trace log beside the checkpoint (mcmc's chains: io::trace_log_path).
    bool traces = false;
    /// Holds the checkpoint's lock (rank 0) for the run's life: claim_outputs takes it.
    io::CheckpointLock* lock = nullptr;
    bool quiet = false;  ///< no note where the file system cannot lock
};

/// `outputs` plus the side files of --checkpoint `path` (for io::check_distinct: an input or
/// an output named like one is refused before it is written over or removed).
inline std::vector<io::NamedPath> with_checkpoint_side_files(std::vector<io::NamedPath> outputs,
                                                             const std::string& path, bool traces) {
    if (path.empty()) return outputs;
    outputs.push_back({"--checkpoint's lock", io::checkpoint_lock_path(path)});
    if (traces) outputs.push_back({"--checkpoint's trace log", io::trace_log_path(path)});
    return outputs;
}

/// Before any work, rank 0 checks --checkpoint and its side files (io::check_checkpoint_start),
/// takes its lock into `use.lock` (a second run on it is refused at once), takes temporaries
/// for --out and the files of `formats` beside it in `outputs`, and proves --checkpoint's
/// folder writable (writable, not a FIFO or device); agreed over the ranks. Returns the
/// temporary of --out ("" when there is none).
inline std::string claim_outputs(mpi::Communicator& comm, io::OutputSet& outputs, const std::string& out,
                                 const std::vector<std::string>& formats, const CheckpointUse& use) {
    const std::string& checkpoint = use.path;
    std::string tmp;
    mpi::run_agreed(comm, [&] {
        if (comm.rank() != 0) return;
        if (use.overwrite && checkpoint.empty()) throw InputError("--overwrite-checkpoint needs --checkpoint FILE");
        if (!checkpoint.empty()) {
            if (use.resume && use.overwrite)
                throw InputError("--resume continues --checkpoint and --overwrite-checkpoint replaces it: give one");
            io::OutputSet probe;  // the checkpoint writer has its own set
            probe.temp_for(checkpoint);
            // First the lock: a run already on this checkpoint is named before anything else.
            if (use.lock) {
                std::string note;
                *use.lock = io::CheckpointLock::acquire(checkpoint, &note);
                if (!note.empty() && !use.quiet) std::cerr << "cudag: note: " << note << '\n';
            }
            std::vector<std::string> side;
            if (use.traces) side.push_back(io::trace_log_path(checkpoint));
            io::check_checkpoint_start(checkpoint, use.resume, use.overwrite, side);
        }
        if (!out.empty()) {
            tmp = outputs.temp_for(out);
            for (const std::string& f : formats) outputs.temp_for(io::format_path(out, f));
        }
    });
    return tmp;
}

/// `items` without `item`.
inline std::vector<std::string> without_item(std::vector<std::string> items, const std::string& item) {
    items.erase(std::remove(items.begin(), items.end(), item), items.end());
    return items;
}

/// Largest graph drawn as PNG/SVG without --force (Graphviz takes minutes beyond).
constexpr std::int64_t kMaxDrawnNodes = 500;

/// --threads as a command uses it: negative is an error, 0 means every hardware thread,
/// more than the hardware threads is clamped to them with a note (unless quiet).
inline int checked_threads(int requested, bool quiet) {
    if (requested < 0)
        throw InputError("--threads must be >= 0 (0: all " + std::to_string(resolve_threads(0)) +
                         " hardware threads), got " + std::to_string(requested));
    const int hw = resolve_threads(0);
    if (requested <= hw) return requested;
    if (!quiet)
        std::cerr << "cudag: note: --threads " << requested << " is more than the " << hw << " hardware threads; using "
                  << hw << '\n';
    return hw;
}

/// A finished run's checkpoint has served: removed (the caller checks --keep-checkpoint),
/// and the interrupt note that named it cleared.
inline void remove_served_checkpoint(const std::string& path) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    interrupt::set_note("");
}

/// `inputs` plus the knowledge files given (for io::check_distinct).
inline std::vector<io::NamedPath> with_knowledge_inputs(std::vector<io::NamedPath> inputs, const KnowledgeFiles& k) {
    if (!k.forbid.empty()) inputs.push_back({"--forbid", k.forbid});
    if (!k.require.empty()) inputs.push_back({"--require", k.require});
    if (!k.tiers.empty()) inputs.push_back({"--tiers", k.tiers});
    return inputs;
}

/// Knowledge given as files (--forbid, --require, --tiers) and as values (an in-process
/// caller's lists); read against the data's names by read_knowledge.
struct KnowledgeJob {
    KnowledgeFiles files;
    KnowledgeValues values;
    bool any() const { return files.any() || values.any(); }
    Knowledge read(const std::vector<std::string>& names) const { return read_knowledge(files, values, names); }
};

}  // namespace cudag::run
