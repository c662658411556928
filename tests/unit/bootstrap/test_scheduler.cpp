// SPDX-License-Identifier: Apache-2.0
// bootstrap/scheduler.hpp: any learner's replicates counted alike on any number of workers,
// and a run stopped after a checkpoint and resumed (on another worker count) counts what an
// uninterrupted one does, with the provenance the checkpoint kept; another run's checkpoint
// is refused naming the setting, and a PAG table's checkpoint is not a CPDAG table's.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bootstrap/scheduler.hpp"
#include "core/error.hpp"
#include "core/pdag.hpp"
#include "skeleton/skeleton.hpp"

namespace cudag {
namespace {

namespace fs = std::filesystem;

/// Replicate r's counted edges on 7 nodes: a pair's kind (or no edge) from r, i and j; a
/// CPDAG table's kinds 1 .. 4, a PAG table's 1 .. 9.
bootstrap::ReplicateEdges edges(std::int64_t r, bootstrap::TableKind kind) {
    const int kinds = bootstrap::columns(kind) - 1;
    bootstrap::ReplicateEdges out;
    for (std::int32_t i = 0; i < 7; ++i)
        for (std::int32_t j = i + 1; j < 7; ++j) {
            const std::int64_t x = (r * 11 + i * 5 + j * 3) % (kinds + 2);
            if (x < kinds) out.push_back({i, j, static_cast<std::int32_t>(x + 1)});
        }
    return out;
}

bootstrap::Options options(std::int64_t b) {
    bootstrap::Options o;
    o.replicates = b;
    o.seed = 5;
    return o;
}

class Scheduler : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cudag_scheduler_" + std::to_string(std::random_device{}()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    bootstrap::Checkpoint checkpoint(const std::string& hash, bool resume) const {
        bootstrap::Checkpoint c;
        c.path = (dir_ / "ck.h5").string();
        c.hash = hash;
        c.settings = {{io::kCheckpointCommand, "test --bootstrap"}, {"--alpha", hash}};
        c.resume = resume;
        c.n_vars = 7;
        c.provenance = [] { return bootstrap::Provenance{{"algorithm", "test"}}; };
        return c;
    }

    fs::path dir_;
};

TEST_F(Scheduler, AStoppedRunResumedOnOtherWorkersCountsTheSame) {
    for (const bootstrap::TableKind kind : {bootstrap::TableKind::Cpdag, bootstrap::TableKind::Pag}) {
        mpi::SerialCommunicator serial;
        const bootstrap::Options b = options(11);
        const bootstrap::ReplicateFn replicate = [kind](std::int64_t r, int, int) { return edges(r, kind); };
        const bootstrap::Table want =
            bootstrap::count_replicates(b, kind, serial, replicate, bootstrap::agree_schedule(serial, 1, 1, 1));
        ASSERT_GT(want.size(), 0u);
        EXPECT_EQ(want.pag, kind == bootstrap::TableKind::Pag);
        EXPECT_EQ(want.counts.size(), want.size() * want.columns());
        // Stopped after a checkpoint of 4 replicates or more (rounds of 2 on 2 workers).
        bootstrap::Checkpoint stop = checkpoint("h1", false);
        stop.stop_after = 4;
        int written = -1;
        stop.on_checkpoint = [&written](int done) { written = done; };
        EXPECT_THROW(bootstrap::count_replicates(b, kind, serial, replicate, bootstrap::agree_schedule(serial, 2, 2, 4),
                                                 {}, &stop),
                     skeleton::StoppedAfterLevel);
        EXPECT_EQ(written, 4);
        ASSERT_TRUE(fs::exists(dir_ / "ck.h5"));
        // Resumed on 3 workers: the same table, the checkpoint's provenance handed back.
        bootstrap::Checkpoint resume = checkpoint("h1", true);
        int resumed = -1;
        bootstrap::Provenance kept;
        resume.on_resume = [&](int done, bootstrap::Provenance p) {
            resumed = done;
            kept = std::move(p);
        };
        const bootstrap::Table got = bootstrap::count_replicates(
            b, kind, serial, replicate, bootstrap::agree_schedule(serial, 3, 3, 3), {}, &resume);
        EXPECT_EQ(resumed, 4);
        EXPECT_EQ(kept, (bootstrap::Provenance{{"algorithm", "test"}}));
        EXPECT_EQ(got.pairs, want.pairs);
        EXPECT_EQ(got.counts, want.counts);
        // Another run's checkpoint: refused, naming the setting that differs.
        try {
            const bootstrap::Checkpoint other = checkpoint("h2", true);
            bootstrap::count_replicates(b, kind, serial, replicate, bootstrap::agree_schedule(serial, 1, 1, 1), {},
                                        &other);
            ADD_FAILURE() << "another run's checkpoint was taken";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("--alpha was h1 in the checkpoint, h2 now"), std::string::npos)
                << e.what();
        }
        // A table of the other kind does not read this checkpoint.
        const bootstrap::TableKind other_kind =
            kind == bootstrap::TableKind::Pag ? bootstrap::TableKind::Cpdag : bootstrap::TableKind::Pag;
        const bootstrap::Checkpoint same = checkpoint("h1", true);
        EXPECT_THROW(bootstrap::count_replicates(
                         b, other_kind, serial, [other_kind](std::int64_t r, int, int) { return edges(r, other_kind); },
                         bootstrap::agree_schedule(serial, 1, 1, 1), {}, &same),
                     InputError);
        fs::remove(dir_ / "ck.h5");
    }
}

TEST(SchedulerCounts, AnyLearnersReplicatesCountTheSameOnSeveralWorkers) {
    // bootstrap::count_replicates (cudag mcmc --bootstrap's counting): a replicate's graph depends on r
    // alone; on 1, 3 and 4 workers (one a GPU) the same table, each worker within range and
    // handed threads / workers threads.
    const auto graph = [](std::int64_t r) {
        Pdag g{Graph(6)};
        for (std::int32_t i = 0; i < 6; ++i)
            for (std::int32_t j = i + 1; j < 6; ++j) {
                const std::int64_t x = (r * 7 + i * 3 + j * 5) % 6;
                if (x == 0) g.set(i, j, Mark::Tail, Mark::Arrow);
                if (x == 1) g.set(i, j, Mark::Arrow, Mark::Tail);
                if (x == 2) g.set(i, j, Mark::Tail, Mark::Tail);
            }
        return g;
    };
    mpi::SerialCommunicator serial;
    const bootstrap::Options b = options(11);
    bootstrap::Table want;
    for (int workers : {1, 3, 4}) {
        std::atomic<int> bad_worker{0}, bad_threads{0};
        const bootstrap::ReplicateFn replicate = [&](std::int64_t r, int threads, int worker) {
            if (worker < 0 || worker >= workers) ++bad_worker;
            if (threads != (workers == 1 ? 8 : 8 / workers)) ++bad_threads;
            return bootstrap::edges_of(graph(r));
        };
        const bootstrap::Table t = bootstrap::count_replicates(b, bootstrap::TableKind::Cpdag, serial, replicate,
                                                               bootstrap::agree_schedule(serial, workers, workers, 8));
        EXPECT_EQ(bad_worker.load(), 0) << workers;
        EXPECT_EQ(bad_threads.load(), 0) << workers;
        if (workers == 1) {
            want = t;
            ASSERT_GT(want.size(), 0u);
            continue;
        }
        EXPECT_EQ(t.pairs, want.pairs) << workers << " workers";
        EXPECT_EQ(t.counts, want.counts) << workers << " workers";
    }
    // The counts are the graphs': pair (0, 1) of each replicate.
    int forward = 0;
    for (std::int64_t r = 0; r < b.replicates; ++r)
        forward += graph(r).end(0, 1) == Mark::Tail && graph(r).end(1, 0) == Mark::Arrow;
    ASSERT_EQ(want.pairs[0], 0);
    ASSERT_EQ(want.pairs[1], 1);
    EXPECT_EQ(want.counts[bootstrap::kForward], forward);
}

TEST(SchedulerFormats, EachTableKindHasItsCheckpointFormat) {
    EXPECT_STREQ(bootstrap::checkpoint_format(bootstrap::TableKind::Cpdag).name, "cudag-pc-bootstrap-checkpoint-1");
    EXPECT_STREQ(bootstrap::checkpoint_format(bootstrap::TableKind::Pag).name, "cudag-pag-bootstrap-checkpoint-1");
}

}  // namespace
}  // namespace cudag
