// SPDX-License-Identifier: Apache-2.0
// cudag_failing: the cudag command line with one rank made to fail (FailingCommunicator),
// for tests of the fault path. CUDAG_TEST_FAIL="RANK:CHECK[:unguarded]" says where; unset,
// it runs as cudag does.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "cli/app.hpp"
#include "support/failing_communicator.hpp"

int main(int argc, char** argv) {
    const char* spec = std::getenv("CUDAG_TEST_FAIL");
    if (!spec || !*spec) return cudag::cli::run(argc, argv);
    cudag::test::InjectedFailure f;
    try {
        f = cudag::test::InjectedFailure::parse(spec);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cudag_failing: CUDAG_TEST_FAIL: %s\n", e.what());
        return 2;
    }
    return cudag::cli::run(argc, argv, [f](std::unique_ptr<cudag::mpi::Communicator> world) {
        return std::unique_ptr<cudag::mpi::Communicator>(
            std::make_unique<cudag::test::FailingCommunicator>(std::move(world), f));
    });
}
