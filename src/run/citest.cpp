// SPDX-License-Identifier: Apache-2.0
#include "run/citest.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <unordered_map>
#include <optional>
#include <span>
#include <vector>

#include "ci/ci_test.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/magnitude.hpp"
#include "io/dataset_io.hpp"
#include "pc/run.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/progress.hpp"
#include "core/backend.hpp"
#include "mpi/communicator.hpp"

namespace cudag::run {

namespace {

/// A note on stderr (or where the caller's LineSink sends the progress lines).
void print_note(const std::string& note) {
    std::string line = "cudag citest: note: ";
    line += note;
    skeleton::print_line(line);
}

/// Index of each name (`index`: the data's names and columns), checking that the variables
/// are distinct.
std::vector<std::int32_t> resolve_names(const Dataset& data, const std::unordered_map<std::string, std::int32_t>& index,
                                        const std::string& x, const std::string& y,
                                        const std::vector<std::string>& given) {
    std::vector<std::int32_t> out;
    out.reserve(given.size() + 2);
    auto add = [&](const std::string& name, const std::string& option, const std::string& as) {
        const auto it = index.find(name);
        if (it == index.end())
            throw InputError(data.source + ": unknown variable '" + name + "' in " + option +
                             " (no column of the header row has that name)");
        for (std::size_t k = 0; k < out.size(); ++k)
            if (out[k] == it->second) {
                const std::string first = k == 0 ? "--x" : k == 1 ? "--y" : "in --given";
                throw InputError("variable '" + name + "' is given twice (as " + first + " and " + as + ")");
            }
        out.push_back(it->second);
    };
    add(x, "--x", "--x");
    add(y, "--y", "--y");
    for (const std::string& z : given) add(z, "--given", "in --given");
    return out;
}

}  // namespace

CitestSession::CitestSession(const CitestJob& a, const DataReader& read) : job_(a) {
    options_.kind = a.test;
    options_.cmi = cmi_knn_spec(a.cmi, a.test);
    options_.cmi_early_stop = false;  // citest reports the exact permutation p-value
    options_.dof = a.dof;
    options_.bnlearn_missing = a.bnlearn_missing;
    options_.student_t = a.student_t;
    threads_ = checked_threads(a.threads, a.quiet);
    const DataOptions data_options = run::data_options(a.missing, a.discrete_columns, a.continuous_columns);
    const ci::TestData reads = ci::traits(a.test).data;
    const io::TableMode mode = reads == ci::TestData::Discrete     ? io::TableMode::Labels
                               : reads == ci::TestData::Continuous ? io::TableMode::Numeric
                                                                   : io::TableMode::Auto;
    data_ = read_data(with_na_values(read, a.data, a.dataset, a.na_values), a.data, a.dataset,
                      read_options(mode, data_options));
    prepare_data(data_, data_options, [&a](const std::string& note) {
        if (!a.quiet) print_note(note);
    });
    index_.reserve(data_.names.size());
    for (std::size_t v = 0; v < data_.names.size(); ++v) index_.emplace(data_.names[v], static_cast<std::int32_t>(v));
}

CitestSession::~CitestSession() = default;

void CitestSession::prepare(int l) {
    if (l <= prepared_) return;  // checked for as large a set before (every check grows with l)
    const int spare = ci::traits(*options_.kind).spare_samples;
    // bnlearn's rule for missing data decides test by test (a test too small is independent)
    const bool bnlearn_rows = options_.bnlearn_missing && data_.missing > 0;
    if (spare >= 0 && data_.n_samples <= l + spare && !bnlearn_rows)
        throw InputError(data_.source + ": " + std::to_string(data_.n_samples) + " samples are too few for " +
                         skeleton::to_string(job_.test) + " given " + std::to_string(l) +
                         " variables (it needs more than " + std::to_string(l + spare) + ")");
    skeleton::validate_test(options_, data_, l);
    // alpha decides only the CMIknn early stop, which citest turns off.
    if (!spec_) {
        spec_ = skeleton::resolve_test(options_, data_, pc::PcConfig{}.alpha, job_.compat);
        // The rule pc follows (core/magnitude.hpp): extreme columns rescaled, exactly.
        if (pc::scale_free(*spec_)) rescaled_ = cudag::rescale_extreme_columns(data_);
    }
    prepared_ = l;
}

CitestOutput CitestSession::test(const std::string& x, const std::string& y, const std::vector<std::string>& given) {
    return run_columns(resolve_names(data_, index_, x, y, given));
}

CitestOutput CitestSession::test_columns(std::int32_t x, std::int32_t y, std::span<const std::int32_t> given) {
    std::vector<std::int32_t> vars;
    vars.reserve(given.size() + 2);
    vars.push_back(x);
    vars.push_back(y);
    vars.insert(vars.end(), given.begin(), given.end());
    for (std::size_t k = 0; k < vars.size(); ++k) {
        const std::int32_t v = vars[k];
        const char* what = k == 0 ? "x" : k == 1 ? "y" : "a conditioning variable";
        if (v < 0 || v >= data_.n_vars) {
            std::string msg = data_.source;
            msg += ": column ";
            msg += std::to_string(v);
            msg += " (";
            msg += what;
            msg += ") is out of range (the data have ";
            msg += std::to_string(data_.n_vars);
            msg += " columns, 0 to ";
            msg += std::to_string(data_.n_vars - 1);
            msg += ")";
            throw InputError(msg);
        }
        for (std::size_t j = 0; j < k; ++j)
            if (vars[j] == v) {
                std::string msg = "column ";
                msg += std::to_string(v);
                msg += " ('";
                msg += data_.names[static_cast<std::size_t>(v)];
                msg += "') is given twice (as ";
                msg += j == 0 ? "x" : j == 1 ? "y" : "a conditioning variable";
                msg += " and as ";
                msg += what;
                msg += ")";
                throw InputError(msg);
            }
    }
    return run_columns(vars);
}

CitestOutput CitestSession::run_columns(const std::vector<std::int32_t>& vars) {
    const std::string& x = data_.names[static_cast<std::size_t>(vars[0])];
    const std::string& y = data_.names[static_cast<std::size_t>(vars[1])];
    const int l = static_cast<int>(vars.size()) - 2;
    prepare(l);
    // A test asked before: its outcome again (every test is a deterministic function of x,
    // y and S as given).
    std::string key;
    for (const std::int32_t v : vars) key.append(reinterpret_cast<const char*>(&v), sizeof v);
    if (const auto hit = cache_.find(key); hit != cache_.end()) return hit->second;
    // The test through ci::CiTest (skeleton/ci_tests.hpp): the statistic, p and the other numbers.
    // Fisher-z reads its columns test by test until that work, weighed by kColumnCost,
    // reaches the correlation matrix's (n²·m/2), then the matrix, computed once (the same
    // outcome bit for bit; a single `cudag citest` never pays for the matrix).
    const auto n = static_cast<double>(data_.n_vars);
    const bool to_matrix = spec_->traits().shared_matrix && !matrix_ && data_.n_vars <= 16384 && data_.missing == 0 &&
                           column_work_ * kColumnCost >= n * n / 2.0;
    if (to_matrix) {
        test_ = skeleton::make_matrix_fisher_z(data_, *spec_, job_.compat, resolve_threads(threads_));
        matrix_ = true;
        max_cond_ = static_cast<int>(data_.n_vars);
    } else if (!test_ || l > max_cond_) {
        test_ = skeleton::make_ci_test(data_, *spec_, job_.compat, threads_, l);
        max_cond_ = l;
    }
    if (!matrix_) column_work_ += static_cast<double>(l + 2) * static_cast<double>(l + 2);
    const std::span<const std::int32_t> z(vars.data() + 2, vars.size() - 2);
    if (job_.verbose)
        for (const std::string& note : test_->notes(vars[0], vars[1], z)) print_note(note);
    ci::CiOutcome o = test_->test(vars[0], vars[1], z);
    if (o.singular && job_.compat == skeleton::Compat::CausalLearn) {  // causal-learn's fisherz raises here
        std::string msg = data_.source;
        msg += ": the correlation matrix of '";
        msg += x;
        msg += "', '";
        msg += y;
        msg += z.empty() ? "'" : "' and the conditioning set";
        msg += " is singular: the fisher-z test cannot run (causal-learn's CIT raises here)";
        throw InputError(msg);
    }
    if (!std::isfinite(o.statistic) || !(o.p >= 0.0 && o.p <= 1.0))
        throw InputError(data_.source + ": the " + spec_->name() + " test of '" + x + "' and '" + y +
                         "' gave statistic " + exact_number(o.statistic) + ", p " + exact_number(o.p) +
                         ": not a result (a column without variance among them?)");
    if (job_.verbose && rescaled_ > 0)
        print_note(std::to_string(rescaled_) + (rescaled_ == 1 ? " column" : " columns") +
                   " of extreme magnitude rescaled by a power of two (exact)");
    CitestOutput out{o.statistic, o.p, data_.n_samples, {}};
    for (auto& e : o.extra) {
        if (e.first == "n_samples")  // --missing testwise: the rows the test used
            out.n_samples = std::stoll(e.second);
        else
            out.extra.push_back(std::move(e));
    }
    if (cache_.size() < kCacheEntries) cache_.emplace(std::move(key), out);
    return out;
}

CitestBatchOutput CitestSession::test_batch(const std::vector<CitestQuery>& queries) {
    ci::QueryList list;
    int l = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const CitestQuery& query = queries[q];
        std::vector<std::int32_t> vars;
        try {
            vars = resolve_names(data_, index_, query.x, query.y, query.given);
        } catch (const InputError& e) {
            throw InputError("query " + std::to_string(q + 1) + ": " + e.what());
        }
        list.add(vars[0], vars[1], std::span<const std::int32_t>(vars).subspan(2));
        l = std::max(l, static_cast<int>(query.given.size()));
    }
    prepare(l);
    CitestBatchOutput out;
    out.n_samples = data_.n_samples;
    out.statistic.resize(queries.size());
    out.p.resize(queries.size());
    if (!batch_ || l > batch_cond_) {
        batch_.reset();
        skeleton::TestPolicy policy;
        policy.causal_learn_pvalue = job_.compat == skeleton::Compat::CausalLearn;
        BackendContext backend;
        backend.kind = job_.backend;
        backend.threads = resolve_threads(threads_);
        mpi::SerialCommunicator self;
        if (ci::traits(spec_->kind).gpu)
            batch_ = skeleton::make_gpu_batch_test(data_, *spec_, policy, l, backend, self);
        else if (backend.kind == BackendKind::Cuda)  // as pc refuses it
            throw InputError("--test " + spec_->name() + " runs on the CPU only (use --backend cpu or auto)");
        if (!batch_)  // the CPU's threads, a query each; Fisher-z's tests share one correlation matrix
            batch_ = std::make_unique<ci::CpuBatchTest>(
                skeleton::ci_test_factory(data_, *spec_, job_.compat, resolve_threads(threads_)),
                resolve_threads(threads_), data_.names);
        batch_cond_ = l;
    }
    out.where = batch_->where();
    batch_->run(list.view(), out.statistic, out.p);
    return out;
}

CitestOutput run_citest(const CitestJob& a, const DataReader& read) {
    CitestSession session(a, read);
    return session.test(a.x, a.y, a.given);
}

namespace {

/// The fields of one line, split at `sep` (no quoting: names with the separator are not
/// queries' names).
std::vector<std::string> split_fields(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (const char ch : line) {
        if (ch == sep) {
            out.push_back(cur);
            cur.clear();
        } else if (ch != '\r') {
            cur += ch;
        }
    }
    out.push_back(cur);
    return out;
}

}  // namespace

std::vector<CitestQuery> read_citest_queries(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot read the queries file");
    std::string line;
    std::int64_t line_no = 0;
    char sep = '\t';
    int cx = -1, cy = -1, cg = -1;
    std::vector<CitestQuery> out;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty() || line == "\r") continue;
        if (cx < 0) {  // the header row
            sep = line.find('\t') != std::string::npos ? '\t' : ',';
            const std::vector<std::string> head = split_fields(line, sep);
            for (std::size_t c = 0; c < head.size(); ++c) {
                int* slot = head[c] == "x" ? &cx : head[c] == "y" ? &cy : head[c] == "given" ? &cg : nullptr;
                if (!slot)
                    throw InputError(path + ":" + std::to_string(line_no) + ": unknown column '" + head[c] +
                                     "' in the header (the columns are x, y and given)");
                if (*slot >= 0)
                    throw InputError(path + ":" + std::to_string(line_no) + ": column '" + head[c] + "' given twice");
                *slot = static_cast<int>(c);
            }
            if (cx < 0 || cy < 0)
                throw InputError(path + ":" + std::to_string(line_no) +
                                 ": the header row must name the columns x and y (and given, optional)");
            continue;
        }
        const std::vector<std::string> f = split_fields(line, sep);
        // A row may end before an empty given (editors drop trailing tabs), no earlier.
        const std::size_t want = static_cast<std::size_t>(std::max({cx, cy, cg})) + 1;
        const std::size_t least = static_cast<std::size_t>(std::max(cx, cy)) + 1;
        const bool short_given =
            f.size() < want && f.size() >= least && static_cast<std::size_t>(cg) >= f.size() && f.size() + 1 == want;
        if (f.size() != want && !short_given)
            throw InputError(path + ":" + std::to_string(line_no) + ": " + std::to_string(f.size()) +
                             (f.size() == 1 ? " field" : " fields") + ", the header has " + std::to_string(want));
        CitestQuery q{f[static_cast<std::size_t>(cx)], f[static_cast<std::size_t>(cy)], {}};
        if (cg >= 0 && static_cast<std::size_t>(cg) < f.size() && !f[static_cast<std::size_t>(cg)].empty())
            for (std::string& name : split_fields(f[static_cast<std::size_t>(cg)], sep == '\t' ? ',' : ';')) {
                if (name.empty()) throw InputError(path + ":" + std::to_string(line_no) + ": an empty name in given");
                q.given.push_back(std::move(name));
            }
        if (q.x.empty() || q.y.empty())
            throw InputError(path + ":" + std::to_string(line_no) + ": x and y need a name each");
        out.push_back(std::move(q));
    }
    if (in.bad()) throw InputError(path + ": cannot read the queries file");
    if (cx < 0) throw InputError(path + ": no header row (the columns are x, y and given)");
    if (out.empty()) throw InputError(path + ": no queries after the header row");
    return out;
}

}  // namespace cudag::run
